-- The webhook log's partitions are made at run time by a function (V15) that runs as its owner (SECURITY DEFINER, with a
-- fixed search path); the service's role alone may call it. Repeatable, as the platform's grants: applied again whenever
-- the role the service runs as changes.
do $$
declare
    partitions text := 'ensure_webhook_events_partitions(integer)';
begin
    if to_regprocedure(partitions) is not null then
        execute format('alter function %s security definer set search_path = %I, pg_temp', partitions, current_schema());
        execute format('revoke execute on function %s from public', partitions);
        execute format('grant execute on function %s to %I', partitions, '${service_role}');
    end if;
end
$$;
