-- A service logs in as a role that owns nothing (quarkus.datasource.username); its migrations run as the
-- database's owner (quarkus.flyway.username). The service's role reads and writes rows, of the tables there are
-- and of those the owner makes later, and cannot change the schema: no DROP, ALTER or TRUNCATE, no trigger turned
-- off, no temporary table (one could stand in for a table a SECURITY DEFINER function names). Repeatable: Flyway
-- applies it again whenever the role it names changes (the placeholder's value counts in its checksum). Where both
-- settings name one role, the grants change nothing and nothing is taken away.
grant select, insert, update, delete on all tables in schema public to "${service_role}";
grant usage, select, update on all sequences in schema public to "${service_role}";
alter default privileges in schema public grant select, insert, update, delete on tables to "${service_role}";
alter default privileges in schema public grant usage, select, update on sequences to "${service_role}";
do $$
begin
    if current_user <> '${service_role}' then
        -- Flyway's history is the owner's alone
        revoke all on "${flyway:table}" from "${service_role}";
        execute format('revoke temporary on database %I from public', current_database());
    end if;
    -- a service that keeps some tables from its role (audit's staged months) takes back what the grants above gave
    if to_regprocedure('restrict_service_role()') is not null then
        perform restrict_service_role();
    end if;
end
$$;
