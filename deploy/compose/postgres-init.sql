-- One database per service (devstack/stack ServiceRegistry); the services' Flyway migrations create
-- their tables, the outbox publication and the replication slots. Run once, on an empty data volume.
CREATE DATABASE guild;
CREATE DATABASE licensing;
CREATE DATABASE billing;
CREATE DATABASE recovery;
CREATE DATABASE audit;
