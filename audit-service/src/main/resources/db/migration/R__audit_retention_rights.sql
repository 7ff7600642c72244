-- The retention's functions (V10, V12) run as their owner (SECURITY DEFINER, with a fixed search path), and the service's
-- role alone may call them. Repeatable, as the platform's grants: applied again whenever the role the service runs as
-- changes. Each function once it exists (a database migrated up to an older version has fewer of them).
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
        if to_regprocedure(retention_function) is not null then
            execute format('alter function %s security definer set search_path = %I, pg_temp', retention_function, current_schema());
            execute format('revoke execute on function %s from public', retention_function);
            execute format('grant execute on function %s to %I', retention_function, '${service_role}');
        end if;
    end loop;
end
$$;
