-- The service now logs in as a role that owns nothing (the platform's R__service_role_rights), so it cannot create
-- tables, nor drop the ledger's append-only triggers. The one table it makes at run time, the webhook log's coming
-- month partitions, is made by this function, for at most two years ahead whatever it is asked; it runs as its owner
-- (SECURITY DEFINER, with a fixed search path) and only the service's role may call it: R__billing_webhook_partition_rights.
create or replace function ensure_webhook_events_partitions(months_ahead integer) returns integer
language plpgsql as $$
declare
    month   date;
    name    text;
    created integer := 0;
begin
    if months_ahead < 0 or months_ahead > 24 then
        raise exception 'webhook partitions are made 0 to 24 months ahead, not %', months_ahead using errcode = 'invalid_parameter_value';
    end if;
    for i in 0..months_ahead loop
        month := (date_trunc('month', now() at time zone 'UTC') + make_interval(months => i))::date;
        name := 'webhook_events_' || to_char(month, 'YYYY_MM');
        if to_regclass(name) is null then
            execute format('create table %I partition of webhook_events for values from (%L) to (%L)',
                           name, (month::timestamp at time zone 'UTC'), ((month + interval '1 month')::timestamp at time zone 'UTC'));
            created := created + 1;
        end if;
    end loop;
    return created;
end;
$$;
