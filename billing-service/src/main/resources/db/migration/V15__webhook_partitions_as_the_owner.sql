-- The service now logs in as a role that owns nothing (platform V0_12), so it cannot create tables, nor drop
-- the ledger's append-only triggers. The one table it makes at run time, the webhook log's coming month
-- partitions, is made by this function as its owner (SECURITY DEFINER, with a fixed search path); only the
-- service's role may call it.
do $$
begin
    execute format('alter function ensure_webhook_events_partitions(integer) security definer set search_path = %I, pg_temp',
                   current_schema());
    revoke execute on function ensure_webhook_events_partitions(integer) from public;
    execute format('grant execute on function ensure_webhook_events_partitions(integer) to %I', '${service_role}');
end
$$;
