-- Read models of guild ownership and plans (dev.umbra.platform.readmodel), kept from the events a
-- service consumes by the services that feed them; empty in the others.

-- The guild of each aggregate that belongs to one guild (a license, a subscription, a restore job, …),
-- learned from any event of it that names the guild. The first one learned stays.
create table aggregate_guild (
    aggregate_type varchar(64)  not null,
    aggregate_id   varchar(128) not null,
    guild_id       varchar(20)  not null,
    learned_at     timestamptz  not null,
    primary key (aggregate_type, aggregate_id)
);

-- Each license's guild, plan and status as licensing announced them: the guild's plan is the highest
-- among its active licenses. Plan and status each keep the position (occurred_at, and the sequence in
-- the license's stream when the event carried one) of the event that set them; a row may exist before
-- the LicenseGranted that names its guild.
create table license_plan (
    license_id      uuid        primary key,
    guild_id        varchar(20),
    plan            varchar(16),
    plan_at         timestamptz,
    plan_sequence   bigint,
    status          varchar(16),
    status_at       timestamptz,
    status_sequence bigint
);

create index license_plan_guild on license_plan (guild_id);
