-- The outbox's logical replication slot, created before the service can write. Outbox rows are
-- deleted in the transaction that inserts them: only the WAL carries them, and only a slot keeps
-- that WAL. With the slot made here, the connector (snapshot.mode no_data, registered whenever)
-- streams from this point and no committed event is missed. The slot is per cluster, hence the
-- database's name in it; the publication (V0_2) is committed first, as decoding needs it.
select pg_create_logical_replication_slot(current_database() || '_outbox', 'pgoutput')
where not exists (select 1 from pg_replication_slots where slot_name = current_database() || '_outbox');
