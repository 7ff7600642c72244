-- TRUNCATE fires no row trigger, so the append-only triggers of V2 never see it; and a statement
-- trigger on a partitioned table does not fire when a partition is truncated by name. Each table of
-- the log, every partition included, refuses TRUNCATE, and so does each partition made from now on
-- (audit_create_partitions now makes the months, then adds what is missing). Retention drops whole
-- months with DROP TABLE, which this does not touch.
create function audit_refuse_truncate() returns integer language plpgsql as $$
declare
    target  regclass;
    guarded integer := 0;
begin
    for target in
        select c.oid::regclass from pg_class c
        where (c.relname in ('audit_log', 'audit_guild')
               or c.oid in (select inhrelid from pg_inherits where inhparent in ('audit_log'::regclass, 'audit_guild'::regclass)))
          and not exists (select 1 from pg_trigger t where t.tgrelid = c.oid and t.tgname = 'no_truncate')
    loop
        execute format('create trigger no_truncate before truncate on %s for each statement execute function audit_reject_change()',
                       target);
        guarded := guarded + 1;
    end loop;
    return guarded;
end
$$;

alter function audit_create_partitions(timestamptz, integer) rename to audit_create_month_tables;

create function audit_create_partitions(first timestamptz, months integer) returns integer language plpgsql as $$
declare
    created integer;
begin
    created := audit_create_month_tables(first, months);
    perform audit_refuse_truncate();
    return created;
end
$$;

select audit_refuse_truncate();
