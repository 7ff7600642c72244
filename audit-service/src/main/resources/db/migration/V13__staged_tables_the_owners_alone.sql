-- A staged month table is written by the retention's functions alone, which run as the owner. The schema's default
-- privileges gave the service's role its rows too: it could insert a row with the (event_id, occurred_at) of one in the
-- default partition, which the move then skipped as already staged and deleted from the default (a forged copy in
-- place of the original). Every right on a staged table is taken from every role but its owner, when it is made and
-- for those made before this migration. Once attached, its rows are read and written through the parent.
alter function audit_guard_staged(text) rename to audit_refuse_staged_changes;

create function audit_guard_staged(staged text) returns void language plpgsql as $$
declare
    grantee text;
begin
    perform audit_refuse_staged_changes(staged);
    for grantee in select distinct a.grantee::regrole::text from pg_class c, aclexplode(c.relacl) a
                   where c.oid = staged::regclass and a.grantee <> c.relowner and a.grantee <> 0 loop
        execute format('revoke all on %I from %s', staged, grantee);
    end loop;
    execute format('revoke all on %I from public', staged);
end
$$;

-- The platform's repeatable grants (R__service_role_rights) give the service's role every table of the schema again
-- whenever they run (the role changed): they call this at their end.
create function restrict_service_role() returns void language plpgsql as $$
declare
    staged text;
begin
    for staged in select c.relname from pg_class c
                  where c.relkind = 'r' and not c.relispartition and c.relnamespace = current_schema()::regnamespace
                    and c.relname ~ '^audit_(log|guild)_[0-9]{4}_[0-9]{2}$' loop
        perform audit_guard_staged(staged);
    end loop;
end
$$;

select restrict_service_role();
