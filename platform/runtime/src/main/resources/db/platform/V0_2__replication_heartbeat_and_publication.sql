-- What the outbox connector (deploy/connectors) reads, created here rather than by Debezium so that it
-- exists before the service's first write (V0_3 then creates the slot).

-- Debezium's heartbeat query writes this row: a change in the publication moves the slot forward
-- even when the service publishes nothing, so an idle database does not pin the server's WAL.
create table replication_heartbeat (
    id      smallint    primary key,
    beat_at timestamptz not null
);

insert into replication_heartbeat (id, beat_at) values (1, now());

-- Inserts carry the events; updates are the heartbeat. The deletes that keep the outbox empty
-- would only be decoded to be thrown away, so they are not published.
create publication umbra_outbox for table outbox_event, replication_heartbeat with (publish = 'insert, update');
