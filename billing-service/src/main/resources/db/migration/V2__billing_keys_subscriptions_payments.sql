-- Billing keys: the gateway's key is stored encrypted (BillingKeyCipher, AES-GCM bound to the row's
-- id); only the masked card is ever shown.
create table billing_key (
    id              uuid         primary key,
    user_id         uuid         not null,
    encrypted_key   varchar(512) not null,
    card_brand      varchar(32)  not null,
    card_last4      char(4)      not null,
    created_at      timestamptz  not null,
    deleted_at      timestamptz,
    version         bigint       not null default 0
);
create index billing_key_of_user on billing_key (user_id) where deleted_at is null;

-- A guild's subscription: the columns of the domain's Subscription record.
create table subscription (
    id                   uuid        primary key,
    guild_id             varchar(20) not null,
    user_id              uuid        not null,
    billing_key_id       uuid        not null references billing_key (id),
    plan_code            varchar(16) not null references plan (code),
    status               varchar(16) not null check (status in ('PENDING', 'ACTIVE', 'PAST_DUE', 'SUSPENDED', 'CANCELED')),
    cycle_anchor         timestamptz,
    paid_through         integer     not null,
    due_period           integer     not null,
    cancel_at_period_end boolean     not null default false,
    pending_plan_code    varchar(16) references plan (code),
    failed_attempts      integer     not null default 0,
    next_attempt_at      timestamptz,
    suspensions          varchar(64) not null default '',
    canceled_at          timestamptz,
    created_at           timestamptz not null,
    updated_at           timestamptz not null,
    version              bigint      not null default 0
);
create index subscription_of_guild on subscription (guild_id);
create index subscription_of_user on subscription (user_id);
create index subscription_of_billing_key on subscription (billing_key_id) where status <> 'CANCELED';
-- One live subscription per guild: a second subscribe is a 409, not a second charge.
create unique index one_live_subscription_per_guild on subscription (guild_id) where status <> 'CANCELED';

-- Every charge attempt. purpose: PERIOD (first charge or renewal of period `period`) or UPGRADE_<plan>.
-- order_id names the attempt at the gateway; idempotency_key is the same for every attempt at the
-- same thing (ChargeKeys).
create table payment (
    id                   uuid         primary key,
    subscription_id      uuid         not null references subscription (id),
    period               integer      not null,
    purpose              varchar(32)  not null,
    order_id             varchar(64)  not null unique,
    idempotency_key      varchar(128) not null,
    amount               bigint       not null check (amount > 0),
    paid_amount          bigint       not null default 0,
    status               varchar(16)  not null check (status in ('IN_PROGRESS', 'SUCCEEDED', 'FAILED')),
    external_payment_key varchar(100),
    failure_message      varchar(500),
    attempted_at         timestamptz  not null,
    resolved_at          timestamptz,
    created_at           timestamptz  not null,
    version              bigint       not null default 0
);
create index payment_by_status_created_at on payment (status, created_at);
create unique index payment_by_external_key on payment (external_payment_key);
create index payment_of_subscription on payment (subscription_id);
-- At most one attempt in flight, and at most one success, per (subscription, period, purpose):
-- enforced here, not only by code, so two replicas can never charge one period twice.
create unique index one_payment_in_flight on payment (subscription_id, period, purpose) where status = 'IN_PROGRESS';
create unique index one_successful_payment on payment (subscription_id, period, purpose) where status = 'SUCCEEDED';
