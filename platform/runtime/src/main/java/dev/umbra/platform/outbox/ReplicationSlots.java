package dev.umbra.platform.outbox;

import dev.umbra.platform.storage.Statements;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Gauge {@code umbra_replication_slot_retained_wal_bytes{slot}}: how much write-ahead log each
 * replication slot of this service's database keeps on the server's disk. A slot nobody reads (the
 * connector stopped, failed, or was never registered) keeps WAL without bound until the disk fills,
 * for every database of the server; the connector's heartbeat keeps the slot of an idle database
 * moving, so a number that only grows means the connector is not streaming. A slot that is gone has
 * no gauge any more.
 *
 * <p>Gauge {@code umbra_replication_slot_missing}: 1 while the database publishes an outbox (the
 * platform's publication is there) but its slot is gone or lost (dropped, or invalidated by
 * {@code max_slot_wal_keep_size}): the events committed since reach no connector. 0 otherwise, and
 * always in a service that publishes nothing.
 *
 * <p>Gauge {@code umbra_replication_slot_inactive}: 1 while the outbox's slot is there but no connector
 * streams from it (the connector failed, was paused or deleted, or Connect is down): events wait in the
 * WAL and reach no consumer, long before the retained WAL grows large on a quiet database. A connector's
 * restart detaches it for seconds; the alert waits minutes.
 *
 * <p>Measured on a schedule, not per scrape: a scrape must not wait for the database. While the
 * database is away the last values stay.
 */
@ApplicationScoped
public class ReplicationSlots {

    // restart_lsn is what the server keeps WAL for; a logical slot that never reserved WAL has none yet.
    private static final String RETAINED = """
            select slot_name, pg_wal_lsn_diff(pg_current_wal_lsn(), coalesce(restart_lsn, confirmed_flush_lsn)) as retained
            from pg_replication_slots
            where database = current_database() and coalesce(restart_lsn, confirmed_flush_lsn) is not null""";
    private static final String MISSING = """
            select exists (select 1 from pg_publication where pubname = 'umbra_outbox')
               and not exists (select 1 from pg_replication_slots
                               where slot_name = current_database() || '_outbox' and database = current_database()
                                 and wal_status is distinct from 'lost') as missing,
                   exists (select 1 from pg_replication_slots
                           where slot_name = current_database() || '_outbox' and database = current_database()
                             and wal_status is distinct from 'lost' and not active) as inactive""";

    private final Pool pool;
    private final MeterRegistry registry;
    private final Map<String, AtomicLong> retained = new ConcurrentHashMap<>();
    private final Map<String, Gauge> gauges = new ConcurrentHashMap<>();
    private final AtomicLong missing = new AtomicLong();
    private final AtomicLong inactive = new AtomicLong();
    private final Gauge missingGauge;
    private final Gauge inactiveGauge;

    public ReplicationSlots(Pool pool, MeterRegistry registry) {
        this.pool = pool;
        this.registry = registry;
        this.missingGauge = Gauge.builder("umbra.replication.slot.missing", missing, AtomicLong::get)
                .description("1 while the outbox's replication slot is gone or lost: committed events reach no connector")
                .register(registry);
        this.inactiveGauge = Gauge.builder("umbra.replication.slot.inactive", inactive, AtomicLong::get)
                .description("1 while the outbox's replication slot is there but no connector streams from it")
                .register(registry);
    }

    @Scheduled(every = "${umbra.replication-slots.measure-interval:15s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> measure() {
        return Statements.execute(pool, RETAINED)
                .invoke(rows -> {
                    Set<String> present = new HashSet<>();
                    for (Row row : rows) {
                        String slot = row.getString("slot_name");
                        present.add(slot);
                        bytes(slot).set(row.getNumeric("retained").longValue());
                    }
                    retained.keySet().stream().filter(slot -> !present.contains(slot)).toList().forEach(this::forget);
                })
                .chain(() -> Statements.execute(pool, MISSING))
                .invoke(rows -> {
                    Row row = rows.iterator().next();
                    missing.set(row.getBoolean("missing") ? 1 : 0);
                    inactive.set(row.getBoolean("inactive") ? 1 : 0);
                })
                .onFailure().recoverWithNull()
                .replaceWithVoid();
    }

    /** The registry can outlive the application (a restart in the same JVM): it must not keep this one's gauges. */
    @PreDestroy
    void unregister() {
        retained.keySet().stream().toList().forEach(this::forget);
        registry.remove(missingGauge);
        registry.remove(inactiveGauge);
    }

    private AtomicLong bytes(String slot) {
        return retained.computeIfAbsent(slot, name -> {
            AtomicLong value = new AtomicLong();
            gauges.put(name, Gauge.builder("umbra.replication.slot.retained.wal", value, AtomicLong::get)
                    .description("Write-ahead log the server keeps for this replication slot (grows while its connector does not stream)")
                    .baseUnit("bytes")
                    .tag("slot", name)
                    .register(registry));
            return value;
        });
    }

    /** A slot that is gone keeps no WAL: its last value would say it still did. */
    private void forget(String slot) {
        retained.remove(slot);
        Gauge gauge = gauges.remove(slot);
        if (gauge != null) {
            registry.remove(gauge);
        }
    }
}
