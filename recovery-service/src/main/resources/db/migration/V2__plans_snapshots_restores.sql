-- V1's guild_plan assumed LicenseGranted comes first; events of one license may be applied in any
-- order (a replay from a dead-letter topic), and a guild may hold a new license after a canceled one.
-- Keyed by license like guild-service's read model: only LicenseGranted names the guild. Plan and
-- status each keep the occurred_at of the event that set them; CANCELED is final. Empty so far.
drop table guild_plan;
create table guild_plan (
    license_id uuid        primary key,
    guild_id   varchar(20),
    plan       varchar(16),
    plan_at    timestamptz,
    status     varchar(16),
    status_at  timestamptz
);
create index guild_plan_guild on guild_plan (guild_id);

-- A guild's structure as the bot saw it: canonical JSON and its SHA-256.
create table snapshot (
    id          uuid        primary key,
    guild_id    varchar(20) not null,
    trigger     varchar(16) not null,
    structure   text        not null,
    checksum    char(64)    not null,
    size_bytes  integer     not null,
    created_at  timestamptz not null
);
create index snapshot_guild_newest on snapshot (guild_id, created_at desc, id desc);

-- Guilds Discord deleted: no new snapshots; the old ones are purged at purge_at (work queue "snapshot-purge").
create table deleted_guild (
    guild_id   varchar(20) primary key,
    deleted_at timestamptz not null,
    purge_at   timestamptz not null
);

create table restore_job (
    id                      uuid        primary key,
    guild_id                varchar(20) not null,
    snapshot_id             uuid        not null,
    pre_restore_snapshot_id uuid,
    status                  varchar(16) not null,
    total_steps             integer,
    done_steps              integer     not null default 0,
    created_count           integer     not null default 0,
    updated_count           integer     not null default 0,
    deleted_count           integer     not null default 0,
    error                   text,
    requested_at            timestamptz not null,
    finished_at             timestamptz
);
-- One active restore per guild, whatever the requests race.
create unique index restore_job_one_active on restore_job (guild_id) where status in ('QUEUED', 'RUNNING');
create index restore_job_guild_requested on restore_job (guild_id, requested_at);

-- The plan of a running restore, one row per step in the order they are applied. A step is PENDING,
-- ATTEMPTED (a create was sent, its answer not recorded: reconciled before it is sent again) or DONE.
create table restore_step (
    job_id     uuid        not null references restore_job (id),
    seq        integer     not null,
    kind       varchar(24) not null,
    target_id  varchar(20) not null,
    spec       text        not null,
    status     varchar(16) not null,
    discord_id varchar(20),
    done_at    timestamptz,
    primary key (job_id, seq)
);
