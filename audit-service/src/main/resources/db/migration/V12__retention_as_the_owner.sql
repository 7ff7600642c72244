-- The service now logs in as a role that owns nothing (the platform's R__service_role_rights), so it can neither
-- drop the log's append-only triggers nor its tables. Its retention still makes and drops month partitions and
-- empties the default partitions: the functions that do it run as their owner (SECURITY DEFINER, with a fixed
-- search path), and only the service's role may call them: R__audit_retention_rights makes them so. What they do is bounded
-- here too, whatever the service asks: they remove no row and no month from the last whole month before the
-- current one on (the retention's keep-months is at least 1), so the service's credentials alone cannot erase recent
-- history; for the service they make months from the previous one to three years ahead only; and the tables they stage for a
-- default partition's rows refuse UPDATE, DELETE and TRUNCATE like the log's partitions, before they are attached.
create function audit_removable_before() returns timestamptz language sql stable as $$
    select (date_trunc('month', now() at time zone 'UTC') - interval '1 month') at time zone 'UTC'
$$;

create or replace function audit_purge_default(parent text, kept_from timestamptz, batch integer) returns integer language plpgsql as $$
declare
    purged integer;
begin
    if kept_from > audit_removable_before() then
        raise exception 'the audit log keeps every row from %: nothing from % on is deleted', audit_removable_before(), kept_from
            using errcode = 'insufficient_privilege';
    end if;
    perform set_config('audit.rehoming', 'on', true);
    execute format('delete from %1$I where ctid = any(array(select ctid from %1$I where occurred_at < $1 limit $2))',
                   audit_checked_parent(parent) || '_default')
        using kept_from, batch;
    get diagnostics purged = row_count;
    perform set_config('audit.rehoming', 'off', true);
    return purged;
end
$$;

create or replace function audit_drop_month_table(name text) returns integer language plpgsql as $$
begin
    if name !~ '^audit_(log|guild)_[0-9]{4}_[0-9]{2}$' then
        raise exception 'not a month table of the audit log: %', name using errcode = 'invalid_parameter_value';
    end if;
    if audit_month_end(to_date(right(name, 7), 'YYYY_MM')::timestamp at time zone 'UTC') > audit_removable_before() then
        raise exception 'the audit log keeps every month from %: % is not dropped', audit_removable_before(), name
            using errcode = 'insufficient_privilege';
    end if;
    perform audit_retention_lock();
    perform set_config('lock_timeout', '5s', true);
    execute format('drop table if exists %I', name);
    return 1;
end
$$;

create or replace function audit_create_partitions(first timestamptz, months integer) returns integer language plpgsql as $$
declare
    created integer;
begin
    -- the owner itself, logged in as such (an operator, a migration), may make any month
    if session_user <> current_user
       and (months < 1 or months > 36 or first < date_trunc('month', now()) - interval '1 month' or first > now() + interval '3 years') then
        raise exception 'month partitions are made from the previous month to three years ahead, at most 36 at once: not % from %',
            months, first using errcode = 'invalid_parameter_value';
    end if;
    created := audit_create_month_tables(first, months);
    perform audit_refuse_truncate();
    return created;
end
$$;

-- A staged month table: refuses UPDATE and DELETE (the rows it takes are only ever inserted) and TRUNCATE, under
-- names apart from those its parent's triggers get when it is attached.
create function audit_guard_staged(staged text) returns void language plpgsql as $$
begin
    if not exists (select 1 from pg_trigger where tgrelid = staged::regclass and tgname = 'staged_append_only') then
        execute format('create trigger staged_append_only before update or delete on %I for each row execute function audit_reject_change()',
                       staged);
    end if;
    if not exists (select 1 from pg_trigger where tgrelid = staged::regclass and tgname = 'no_truncate') then
        execute format('create trigger no_truncate before truncate on %I for each statement execute function audit_reject_change()', staged);
    end if;
end
$$;

create or replace function audit_stage_month(parent text, month timestamptz, batch integer) returns integer language plpgsql as $$
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
        perform audit_guard_staged(staged);
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

-- the month tables staged before this migration and not attached yet
select audit_guard_staged(c.relname) from pg_class c
where c.relkind = 'r' and not c.relispartition and c.relnamespace = current_schema()::regnamespace
  and c.relname ~ '^audit_(log|guild)_[0-9]{4}_[0-9]{2}$';
