create table license (
    license_id        uuid         primary key,
    guild_id          varchar(20)  not null unique,
    plan              varchar(16)  not null,
    status            varchar(16)  not null,
    expires_at        timestamptz,
    suspension_reason varchar(64),
    subscription_id   uuid,
    updated_at        timestamptz  not null,
    version           bigint       not null default 0,
    constraint license_plan check (plan in ('FREE', 'PRO', 'PREMIUM')),
    constraint license_status check (status in ('ACTIVE', 'SUSPENDED', 'CANCELED'))
);
