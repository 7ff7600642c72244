-- The charges with a billing key that may still reach the gateway: one row per charge, written when it is prepared
-- (in the transaction that locks the key's row), until the longest a call with all the guard's tries can take, and
-- removed once its answer is applied (kept until then when the gateway answered "pending" or nothing usable). The
-- key's deletion locks the same row and waits for them (409), rather than answer "deleted" while a charge with the
-- key can still go out.
create table billing_key_charge (
    payment_id     uuid        primary key references payment (id) on delete cascade,
    billing_key_id uuid        not null references billing_key (id),
    until          timestamptz not null
);
create index billing_key_charge_of_key on billing_key_charge (billing_key_id, until);
