-- Refunds FAILED without the gateway's word: the refund reconciliation found no cancel with the refund's
-- key settle-after its uncertain answer, and the gateway could still execute that cancel later. Each such
-- refund is watched by the job of work queue "late-refunds" (as long as stray charges are:
-- billing.reconciliation.stray-watch), which records a cancel that shows up after all: the refund
-- SUCCEEDED with its RefundSucceeded, the invoice's refunded amount and the ledger's REFUND, once.
create table refund_watch (
    refund_id              uuid         primary key references refund (id),
    payment_key            varchar(100) not null,
    status                 varchar(16)  not null check (status in ('WATCHING', 'RECORDED', 'NOTHING_ARRIVED')),
    reason                 varchar(500) not null,
    cancel_transaction_key varchar(100),
    detail                 varchar(500),
    looks                  integer      not null default 0,
    next_look_at           timestamptz  not null,
    watch_until            timestamptz  not null,
    created_at             timestamptz  not null,
    resolved_at            timestamptz,
    version                bigint       not null default 0
);
create index refund_watch_watching on refund_watch (next_look_at, refund_id) where status = 'WATCHING';
