-- V7 emptied a default partition in one statement, in the retention run's one transaction: with many rows
-- in it (months without a partition, clocks far off) that statement outlived the statement timeout, and
-- its failure rolled back the creation of the coming months and the drops with it, at every run after.
--
-- Rows of a month that has no partition can leave the default only in the transaction that attaches that
-- month: Postgres attaches no partition while the default holds rows of its range, and rows moved anywhere
-- else would be out of every query until then. So the retention first copies them, a batch per
-- transaction, into a table of their month made beside the log (audit_stage_month; the originals stay in
-- the default and are what queries see), then in one transaction, a batch per statement, takes them out of
-- the default (a row that arrived since is copied then, none twice) and attaches that table as the month
-- (audit_move_staged, audit_attach_staged). Rows older than what is kept are deleted from the default a
-- batch at a time (audit_purge_default). The Java side (AuditRetention) runs these steps one by one.

-- Deleting from a default partition stays refused, as on every table of the log, except inside the
-- retention's own statements above, which turn audit.rehoming on for their transaction only.
create or replace function audit_reject_change() returns trigger language plpgsql as $$
begin
    if tg_op = 'DELETE' and tg_table_name in ('audit_log_default', 'audit_guild_default')
       and current_setting('audit.rehoming', true) = 'on' then
        return old;
    end if;
    raise exception 'the audit log is append-only: % on % refused', tg_op, tg_table_name using errcode = 'insufficient_privilege';
end
$$;

-- The retention's schema changes of a run never interleave with another run's (a run whose lease ran out
-- and the one that took over): two of them would wait on each other's table locks.
create function audit_retention_lock() returns void language sql as $$
    select pg_advisory_xact_lock(hashtext('audit_retention'))
$$;

create function audit_checked_parent(parent text) returns text language plpgsql immutable as $$
begin
    if parent not in ('audit_log', 'audit_guild') then
        raise exception 'not a table of the audit log: %', parent using errcode = 'invalid_parameter_value';
    end if;
    return parent;
end
$$;

create function audit_month_end(month timestamptz) returns timestamptz language sql immutable as $$
    select (date_trunc('month', month at time zone 'UTC') + interval '1 month') at time zone 'UTC'
$$;

create function audit_month_table(parent text, month timestamptz) returns text language sql immutable as $$
    select audit_checked_parent(parent) || '_' || to_char(month at time zone 'UTC', 'YYYY_MM')
$$;

create function audit_columns(parent text) returns text language sql stable as $$
    select string_agg(quote_ident(attname), ', ' order by attnum)
    from pg_attribute where attrelid = audit_checked_parent(parent)::regclass and attnum > 0 and not attisdropped
$$;

-- V2's month creation, which skips a month whose rows sit in the default (the retention stages and
-- attaches those), now locks out writes to the log between that look and the creation: an event of the
-- month stored into the default meanwhile would fail the creation.
create or replace function audit_create_month_tables(first timestamptz, months integer) returns integer language plpgsql as $$
declare
    start_at timestamptz;
    created  integer := 0;
    parent   text;
    name     text;
    taken    boolean;
begin
    for i in 0 .. months - 1 loop
        start_at := (date_trunc('month', first at time zone 'UTC') + make_interval(months => i)) at time zone 'UTC';
        foreach parent in array array['audit_log', 'audit_guild'] loop
            name := audit_month_table(parent, start_at);
            continue when to_regclass(name) is not null;
            perform audit_retention_lock();
            perform set_config('lock_timeout', '5s', true);
            execute format('lock table only %I in share row exclusive mode', parent);
            execute format('select exists (select 1 from %I where occurred_at >= %L and occurred_at < %L)',
                           parent || '_default', start_at, audit_month_end(start_at)) into strict taken;
            if not taken then
                execute format('create table %I partition of %I for values from (%L) to (%L)', name, parent, start_at, audit_month_end(start_at));
                created := created + 1;
            end if;
        end loop;
    end loop;
    return created;
end
$$;

-- The months (their first instant) of the rows kept in the parent's default partition, and of the month
-- tables staged for it and not attached yet; one index probe per month.
create function audit_default_months(parent text, kept_from timestamptz) returns setof timestamptz language plpgsql stable as $$
declare
    months timestamptz[] := '{}';
    earliest timestamptz;
    next_at timestamptz := kept_from;
begin
    loop
        execute format('select min(occurred_at) from %I where occurred_at >= $1', audit_checked_parent(parent) || '_default')
            into earliest using next_at;
        exit when earliest is null;
        months := months || (date_trunc('month', earliest at time zone 'UTC') at time zone 'UTC');
        next_at := audit_month_end(earliest);
    end loop;
    return query
        select distinct month from (
            select unnest(months) as month
            union all
            select to_date(substring(c.relname from '[0-9]{4}_[0-9]{2}$'), 'YYYY_MM')::timestamp at time zone 'UTC'
            from pg_class c
            where c.relkind = 'r' and not c.relispartition and c.relnamespace = current_schema()::regnamespace
              and c.relname ~ ('^' || audit_checked_parent(parent) || '_[0-9]{4}_[0-9]{2}$')) staged
        where month >= kept_from
        order by month;
end
$$;

-- Copies up to `batch` rows of `month` from the parent's default partition into that month's table, made
-- (not attached) on the first call, after the last row copied so far. Returns how many it copied.
create function audit_stage_month(parent text, month timestamptz, batch integer) returns integer language plpgsql as $$
declare
    staged        text := audit_month_table(parent, month);
    columns       text := audit_columns(parent);
    last_occurred timestamptz;
    last_event    uuid;
    copied        integer;
begin
    perform audit_retention_lock();
    if to_regclass(staged) is null then
        -- its check constraint spares the attach a scan of the month
        execute format('create table %I (like %I including all, check (occurred_at >= %L and occurred_at < %L))',
                       staged, parent, month, audit_month_end(month));
    end if;
    execute format('select occurred_at, event_id from %I order by occurred_at desc, event_id desc limit 1', staged)
        into last_occurred, last_event;
    execute format('insert into %I (%s) select %s from %I where occurred_at >= $1 and occurred_at < $2 '
                   || 'and (occurred_at, event_id) > ($3, $4) order by occurred_at, event_id limit $5 on conflict do nothing',
                   staged, columns, columns, parent || '_default')
        using month, audit_month_end(month), coalesce(last_occurred, '-infinity'),
              coalesce(last_event, '00000000-0000-0000-0000-000000000000'), batch;
    get diagnostics copied = row_count;
    return copied;
end
$$;

-- Part of the transaction that attaches a staged month: takes up to `batch` rows of the month out of the
-- default, after the row (after_occurred, after_event), into the month's table (a row copied there
-- already is not copied twice). The first call makes writes to the log wait (reads go on) until the
-- transaction ends: once a call finds fewer than `batch` rows none of the month is left in the default,
-- and no insert that chose the default before the attach meets the month attached under it (the attach
-- alone locks the log too weakly to keep them out). The log first, as inserts lock it: no deadlock.
create function audit_move_staged(parent text, month timestamptz, batch integer, after_occurred timestamptz, after_event uuid,
                                  out last_occurred timestamptz, out last_event uuid, out moved integer) language plpgsql as $$
declare
    columns text := audit_columns(parent);
begin
    perform audit_retention_lock();
    perform set_config('lock_timeout', '5s', true);
    execute format('lock table only %I in share row exclusive mode', parent);
    perform set_config('audit.rehoming', 'on', true);
    execute format('with moved as (delete from %1$I where ctid = any(array(select ctid from %1$I where occurred_at >= $1 and occurred_at < $2 '
                   || 'and (occurred_at, event_id) > ($3, $4) order by occurred_at, event_id limit $5)) returning %3$s), '
                   || 'copied as (insert into %2$I (%3$s) select %3$s from moved on conflict do nothing) '
                   || 'select max(occurred_at), (array_agg(event_id order by occurred_at desc, event_id desc))[1], count(*) from moved',
                   parent || '_default', audit_month_table(parent, month), columns)
        using month, audit_month_end(month), coalesce(after_occurred, '-infinity'),
              coalesce(after_event, '00000000-0000-0000-0000-000000000000'), batch
        into last_occurred, last_event, moved;
    perform set_config('audit.rehoming', 'off', true);
end
$$;

-- Ends that transaction: the month's table becomes its partition (a run that got there first leaves
-- nothing to do). Returns 1 if it attached the table.
create function audit_attach_staged(parent text, month timestamptz) returns integer language plpgsql as $$
declare
    staged text := audit_month_table(parent, month);
begin
    perform audit_retention_lock();
    if (select relispartition from pg_class where oid = to_regclass(staged)) then
        return 0;
    end if;
    execute format('alter table %I attach partition %I for values from (%L) to (%L)', parent, staged, month, audit_month_end(month));
    perform audit_refuse_truncate();
    return 1;
end
$$;

-- Deletes up to `batch` rows older than `kept_from` from the parent's default partition, as retention
-- drops a month past keeping; returns how many.
create function audit_purge_default(parent text, kept_from timestamptz, batch integer) returns integer language plpgsql as $$
declare
    purged integer;
begin
    perform set_config('audit.rehoming', 'on', true);
    execute format('delete from %1$I where ctid = any(array(select ctid from %1$I where occurred_at < $1 limit $2))',
                   audit_checked_parent(parent) || '_default')
        using kept_from, batch;
    get diagnostics purged = row_count;
    perform set_config('audit.rehoming', 'off', true);
    return purged;
end
$$;

-- Drops a month table, a partition or one staged and never attached, whole.
create function audit_drop_month_table(name text) returns integer language plpgsql as $$
begin
    if name !~ '^audit_(log|guild)_[0-9]{4}_[0-9]{2}$' then
        raise exception 'not a month table of the audit log: %', name using errcode = 'invalid_parameter_value';
    end if;
    perform audit_retention_lock();
    perform set_config('lock_timeout', '5s', true);
    execute format('drop table if exists %I', name);
    return 1;
end
$$;

drop function audit_rehome_default(timestamptz);
