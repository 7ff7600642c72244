-- Audit-log entries the bot forwards, one row per Discord entry id (a repeat is ignored): the
-- anti-nuke detector's sliding windows are counted from here, so its state survives a restart.
create table audit_log_entry (
    guild_id    varchar(20) not null,
    entry_id    varchar(20) not null,
    action      varchar(40) not null,
    actor_id    varchar(20) not null,
    target_id   varchar(20),
    occurred_at timestamptz not null,
    primary key (guild_id, entry_id)
);
create index audit_log_entry_window on audit_log_entry (guild_id, actor_id, action, occurred_at);

-- A burst that triggered: while an actor's entries of the pattern keep coming within its window
-- (last_at), they belong to this burst and trigger nothing more.
create table anti_nuke_incident (
    id           uuid        primary key,
    guild_id     varchar(20) not null,
    actor_id     varchar(20) not null,
    pattern      varchar(40) not null,
    first_at     timestamptz not null,
    last_at      timestamptz not null,
    triggered_at timestamptz not null,
    acted        boolean     not null
);
create index anti_nuke_incident_burst on anti_nuke_incident (guild_id, actor_id, pattern, last_at);
