-- The service now logs in as a role that owns nothing (platform V0_12), so it can neither drop the log's
-- append-only triggers nor its tables. Its retention still makes and drops month partitions and empties the
-- default partitions: the functions that do it run as their owner (SECURITY DEFINER, with a fixed search path),
-- and only the service's role may call them. What they remove is bounded here too, whatever the service asks:
-- rows and months older than the last whole month before the current one, never younger (the retention's
-- keep-months is at least 1), so the service's credentials alone cannot erase recent history.
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

do $$
declare
    retention_function text;
begin
    foreach retention_function in array array[
        'audit_create_partitions(timestamptz, integer)',
        'audit_stage_month(text, timestamptz, integer)',
        'audit_move_staged(text, timestamptz, integer, timestamptz, uuid)',
        'audit_attach_staged(text, timestamptz)',
        'audit_purge_default(text, timestamptz, integer)',
        'audit_drop_month_table(text)'] loop
        execute format('alter function %s security definer set search_path = %I, pg_temp', retention_function, current_schema());
        execute format('revoke execute on function %s from public', retention_function);
        execute format('grant execute on function %s to %I', retention_function, '${service_role}');
    end loop;
end
$$;
