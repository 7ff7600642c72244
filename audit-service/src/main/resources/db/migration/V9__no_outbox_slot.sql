-- audit-service publishes nothing and no connector reads its database, yet the platform's migrations
-- gave it the outbox's publication (V0_2) and replication slot (V0_3) as they give every service. A
-- slot nobody reads keeps every WAL segment the server writes from its creation on, for all the
-- server's databases, until the disk fills (or max_slot_wal_keep_size invalidates it): dropped here.
select pg_drop_replication_slot(slot_name) from pg_replication_slots
where slot_name = current_database() || '_outbox' and database = current_database() and not active;

drop publication if exists umbra_outbox;
