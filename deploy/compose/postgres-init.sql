-- One database per service (devstack/stack ServiceRegistry); the services' Flyway migrations create
-- their tables, the outbox publication and the replication slots, as the owner (umbra). Run once, on an
-- empty data volume. Each service logs in as its own role, which owns nothing: the "secrets" service wrote
-- them with their passwords.
\i /run/umbra/service-roles.sql
CREATE DATABASE guild;
CREATE DATABASE licensing;
CREATE DATABASE billing;
CREATE DATABASE recovery;
CREATE DATABASE audit;
