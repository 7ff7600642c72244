-- Money the gateway may hold for a payment that FAILED here: it charged another amount than asked, it
-- completed a charge after this service had given up on it, or the payment was failed without the
-- gateway's word (never found, pending too long) and could still complete. Each row is watched by the
-- job of work queue "stray-charge-returns", which gives whatever was taken back in full through the
-- gateway's cancel API, with the row's own idempotency key.
create table stray_charge (
    id                     uuid         primary key,
    payment_id             uuid         not null unique references payment (id),
    order_id               varchar(64)  not null,
    payment_key            varchar(100),
    status                 varchar(16)  not null check (status in ('WATCHING', 'RETURNED', 'NOTHING_TAKEN', 'REFUSED', 'UNRESOLVED')),
    reason                 varchar(500) not null,
    returned_amount        bigint,
    cancel_transaction_key varchar(100),
    detail                 varchar(500),
    looks                  integer      not null default 0,
    next_look_at           timestamptz  not null,
    watch_until            timestamptz  not null,
    created_at             timestamptz  not null,
    resolved_at            timestamptz,
    version                bigint       not null default 0
);
create index stray_charge_watching on stray_charge (next_look_at, id) where status = 'WATCHING';
