-- A service logs in as a role that owns nothing (quarkus.datasource.username); its migrations run as the
-- database's owner (quarkus.flyway.username). The service's role reads and writes rows, of the tables there are
-- and of those later migrations make, and cannot change the schema: no DROP, ALTER or TRUNCATE, no trigger
-- turned off (what keeps the audit log append-only holds against the service itself). Where both settings name
-- one role, as before this migration, these grants change nothing.
grant select, insert, update, delete on all tables in schema public to "${service_role}";
grant usage, select, update on all sequences in schema public to "${service_role}";
alter default privileges in schema public grant select, insert, update, delete on tables to "${service_role}";
alter default privileges in schema public grant usage, select, update on sequences to "${service_role}";
-- Flyway's history is the owner's alone (taken back only from a role apart from the owner: the owner keeps its own).
do $$
begin
    if current_user <> '${service_role}' then
        revoke all on "${flyway:table}" from "${service_role}";
    end if;
end
$$;
