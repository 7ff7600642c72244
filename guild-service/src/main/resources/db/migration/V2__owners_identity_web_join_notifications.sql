-- The guild's owner (a Discord user id) receives its notifications.
alter table guild add column owner_id varchar(20);
update guild set owner_id = installer_user_id;
alter table guild alter column owner_id set not null;

-- Identity: users who signed in with Discord, and their sessions (the token is stored only as a hash).
create table app_user (
    user_id         uuid        primary key,
    discord_user_id varchar(20) not null unique,
    registered_at   timestamptz not null
);

create table user_session (
    session_id  uuid        primary key,
    user_id     uuid        not null references app_user (user_id),
    token_hash  char(64)    not null unique,
    created_at  timestamptz not null,
    expires_at  timestamptz not null
);

create index user_session_user on user_session (user_id);

-- Web-join: a guild's public join link, and the members who came through it.
create table web_join_link (
    slug       varchar(32) primary key,
    guild_id   varchar(20) not null unique references guild (guild_id),
    created_at timestamptz not null,
    constraint web_join_slug check (slug ~ '^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$')
);

create table member (
    member_id       uuid        primary key,
    guild_id        varchar(20) not null references guild (guild_id),
    discord_user_id varchar(20) not null,
    slug            varchar(32) not null,
    joined_at       timestamptz not null,
    unique (guild_id, discord_user_id)
);

-- Read model for notifications: the guild a subscription, license or restore job belongs to,
-- learned from the event that introduced it (SubscriptionStarted, LicenseGranted, RestoreStarted).
create table guild_of (
    aggregate_type varchar(50)  not null,
    aggregate_id   varchar(128) not null,
    guild_id       varchar(20)  not null,
    primary key (aggregate_type, aggregate_id)
);

-- Messages to send to other systems (Discord), written in the transaction of the event that causes
-- them and delivered by the dispatcher with retries (the integration outbox, docs/architecture.md).
create table integration_outbox (
    outbox_id       uuid         primary key,
    aggregate_type  varchar(50)  not null,
    aggregate_id    varchar(128) not null,
    event_type      varchar(100) not null,
    target_provider varchar(50)  not null,
    payload         jsonb        not null,
    status          varchar(20)  not null default 'pending',
    attempts        integer      not null default 0,
    max_attempts    integer      not null,
    next_attempt_at timestamptz  not null,
    locked_until    timestamptz,
    last_error      text,
    created_at      timestamptz  not null,
    completed_at    timestamptz,
    constraint integration_outbox_status check (status in ('pending', 'processing', 'completed', 'failed', 'dead_letter'))
);

create index integration_outbox_due on integration_outbox (next_attempt_at) where status in ('pending', 'failed');
create index integration_outbox_processing on integration_outbox (locked_until) where status = 'processing';
create index integration_outbox_dead on integration_outbox (created_at) where status = 'dead_letter';
