-- The audit log proper. V1's audit_log was never written to: it is replaced by a table partitioned by
-- the month of occurred_at, so that retention drops whole months and never deletes a row.
drop table audit_log;

-- Every event of every topic, once, as it was published (its payload masked). The event id is unique
-- through the inbox's claim in processed_event (consumer 'audit', same transaction); a partitioned
-- table can only enforce uniqueness together with its partition key, and occurred_at is fixed per event.
create table audit_log (
    event_id         uuid         not null,
    occurred_at      timestamptz  not null,
    recorded_at      timestamptz  not null,
    processed_at     timestamptz  not null,
    aggregate_type   varchar(64)  not null,
    aggregate_id     varchar(128) not null,
    event_type       varchar(128) not null,
    schema_version   integer      not null,
    sequence         bigint       not null,
    trace_context    varchar(256),
    payload          jsonb        not null,
    masked_fields    jsonb        not null,
    source_topic     varchar(255) not null,
    source_partition integer      not null,
    source_offset    bigint       not null,
    primary key (event_id, occurred_at)
) partition by range (occurred_at);

create index audit_log_occurred on audit_log (occurred_at, event_id);
create index audit_log_aggregate on audit_log (aggregate_type, aggregate_id, occurred_at, event_id);
create index audit_log_event_type on audit_log (event_type, occurred_at, event_id);

-- The guild of each event that has one, learned when it was stored or later (back-filled when the
-- event that names the guild arrives after it). Append-only like the log, partitioned the same way.
create table audit_guild (
    event_id      uuid        not null,
    occurred_at   timestamptz not null,
    guild_id      varchar(20) not null,
    attributed_at timestamptz not null,
    primary key (event_id, occurred_at)
) partition by range (occurred_at);

create index audit_guild_timeline on audit_guild (guild_id, occurred_at, event_id);

-- Rows outside every month partition (an occurred_at older than retention kept, or months ahead).
create table audit_log_default partition of audit_log default;
create table audit_guild_default partition of audit_guild default;

create function audit_reject_change() returns trigger language plpgsql as $$
begin
    raise exception 'the audit log is append-only: % on % refused', tg_op, tg_table_name using errcode = 'insufficient_privilege';
end
$$;

create trigger audit_log_append_only before update or delete on audit_log
    for each row execute function audit_reject_change();
create trigger audit_guild_append_only before update or delete on audit_guild
    for each row execute function audit_reject_change();

-- Creates the month partitions of both tables for the month of `first` and the `months` - 1 after it;
-- a month whose rows already sit in a default partition is left there (creating it would fail).
create function audit_create_partitions(first timestamptz, months integer) returns integer language plpgsql as $$
declare
    start_at timestamptz;
    end_at   timestamptz;
    created  integer := 0;
    parent   text;
    name     text;
    taken    boolean;
begin
    for i in 0 .. months - 1 loop
        start_at := (date_trunc('month', first at time zone 'UTC') + make_interval(months => i)) at time zone 'UTC';
        end_at := (date_trunc('month', first at time zone 'UTC') + make_interval(months => i + 1)) at time zone 'UTC';
        foreach parent in array array['audit_log', 'audit_guild'] loop
            name := parent || '_' || to_char(start_at at time zone 'UTC', 'YYYY_MM');
            if to_regclass(name) is null then
                execute format('select exists (select 1 from %I where occurred_at >= %L and occurred_at < %L)',
                               parent || '_default', start_at, end_at) into strict taken;
                if not taken then
                    execute format('create table %I partition of %I for values from (%L) to (%L)', name, parent, start_at, end_at);
                    created := created + 1;
                end if;
            end if;
        end loop;
    end loop;
    return created;
end
$$;

select audit_create_partitions(now() - interval '1 month', 4);

-- Read model: the guild of an aggregate that is not a guild (a license, a subscription, an invoice…),
-- learned from the first event that ties them (LicenseGranted, SubscriptionStarted, …).
create table guild_of (
    aggregate_type varchar(64)  not null,
    aggregate_id   varchar(128) not null,
    guild_id       varchar(20)  not null,
    learned_at     timestamptz  not null,
    primary key (aggregate_type, aggregate_id)
);

-- Events whose guild is not known yet, with each aggregate that would tell it: when the guild of one
-- of them is learned, the event is attributed and its rows here go.
create table audit_unattributed (
    event_id    uuid         not null,
    occurred_at timestamptz  not null,
    ref_type    varchar(64)  not null,
    ref_id      varchar(128) not null,
    primary key (event_id, ref_type, ref_id)
);

create index audit_unattributed_ref on audit_unattributed (ref_type, ref_id);
