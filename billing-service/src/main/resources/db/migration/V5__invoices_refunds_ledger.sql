-- Invoices: exactly one per successful charge (the unique payment_id), written in the transaction
-- that settles the charge. refund_reserved counts the refunds in flight and done, refunded the done
-- ones: the checks keep the refunds of an invoice within what was paid whatever the code does.
create table invoice (
    id              uuid        primary key,
    subscription_id uuid        not null references subscription (id),
    user_id         uuid        not null,
    payment_id      uuid        not null unique references payment (id),
    period_start    timestamptz not null,
    period_end      timestamptz not null,
    currency        char(3)     not null,
    total           bigint      not null check (total > 0),
    refund_reserved bigint      not null default 0 check (refund_reserved between 0 and total),
    refunded        bigint      not null default 0 check (refunded between 0 and refund_reserved),
    status          varchar(24) not null check (status in ('ISSUED', 'PAID', 'PARTIALLY_REFUNDED', 'REFUNDED')),
    issued_at       timestamptz not null,
    version         bigint      not null default 0,
    check (period_end > period_start)
);
create index invoice_of_subscription on invoice (subscription_id, issued_at);
create index invoice_of_user on invoice (user_id, issued_at);

create table invoice_line (
    id          uuid         primary key,
    invoice_id  uuid         not null references invoice (id),
    position    integer      not null,
    description varchar(200) not null,
    amount      bigint       not null check (amount > 0),
    unique (invoice_id, position)
);

-- Refunds through the gateway's cancel call, one row per refund request. A request surely not sent is
-- deleted (rolled back); an uncertain one stays IN_PROGRESS for the reconciliation job. The
-- Idempotency-Key of the request is unique per invoice: a repeated request finds the first one.
create table refund (
    id                      uuid         primary key,
    invoice_id              uuid         not null references invoice (id),
    amount                  bigint       not null check (amount > 0),
    currency                char(3)      not null,
    reason                  varchar(200) not null,
    idempotency_key         varchar(128) not null,
    status                  varchar(16)  not null check (status in ('IN_PROGRESS', 'SUCCEEDED', 'FAILED')),
    gateway_transaction_key varchar(100),
    failure_message         varchar(500),
    attempted_at            timestamptz  not null,
    resolved_at             timestamptz,
    created_at              timestamptz  not null,
    version                 bigint       not null default 0,
    unique (invoice_id, idempotency_key)
);
create index refund_by_status_created_at on refund (status, created_at);

-- The ledger: append-only entries per subscription. amount is signed (a charge adds, a refund
-- subtracts, a reversal is the exact negative of the entry it reverses). Three times: occurred_at
-- (in the world), recorded_at (when billing learned of it), booked_at (when it was written here).
create table ledger_entry (
    id               uuid         primary key,
    subscription_id  uuid         not null references subscription (id),
    kind             varchar(16)  not null check (kind in ('CHARGE', 'REFUND', 'REVERSAL', 'ADJUSTMENT')),
    amount           bigint       not null,
    currency         char(3)      not null,
    source_event_id  uuid         not null,
    invoice_id       uuid         references invoice (id),
    reverses_entry_id uuid        references ledger_entry (id),
    description      varchar(200) not null,
    occurred_at      timestamptz  not null,
    recorded_at      timestamptz  not null,
    booked_at        timestamptz  not null,
    check ((kind = 'REVERSAL') = (reverses_entry_id is not null))
);
create index ledger_entry_of_subscription on ledger_entry (subscription_id, recorded_at);
-- An entry is reversed at most once.
create unique index ledger_entry_reversed_once on ledger_entry (reverses_entry_id) where reverses_entry_id is not null;

-- Append-only, enforced by the database: whoever connects, an UPDATE, DELETE or TRUNCATE fails.
create function ledger_entry_append_only() returns trigger language plpgsql as $$
begin
    raise exception 'ledger_entry is append-only: % refused; correct an entry with a reversal', tg_op
        using errcode = 'P0001';
end;
$$;
create trigger ledger_entry_no_update_or_delete before update or delete on ledger_entry
    for each row execute function ledger_entry_append_only();
create trigger ledger_entry_no_truncate before truncate on ledger_entry
    for each statement execute function ledger_entry_append_only();
