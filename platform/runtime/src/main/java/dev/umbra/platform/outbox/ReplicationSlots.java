package dev.umbra.platform.outbox;

import dev.umbra.platform.storage.Statements;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Gauge {@code umbra_replication_slot_retained_wal_bytes{slot}}: how much write-ahead log each
 * replication slot of this service's database keeps on the server's disk. A slot nobody reads (the
 * connector stopped, failed, or was never registered) keeps WAL without bound until the disk fills,
 * for every database of the server; the connector's heartbeat keeps the slot of an idle database
 * moving, so a number that only grows means the connector is not streaming.
 *
 * <p>Measured on a schedule, not per scrape: a scrape must not wait for the database. While the
 * database is away the last value stays.
 */
@ApplicationScoped
public class ReplicationSlots {

    // restart_lsn is what the server keeps WAL for; a logical slot that never reserved WAL has none yet.
    private static final String RETAINED = """
            select slot_name, pg_wal_lsn_diff(pg_current_wal_lsn(), coalesce(restart_lsn, confirmed_flush_lsn)) as retained
            from pg_replication_slots
            where database = current_database() and coalesce(restart_lsn, confirmed_flush_lsn) is not null""";

    private final Pool pool;
    private final MeterRegistry registry;
    private final Map<String, AtomicLong> retained = new ConcurrentHashMap<>();

    public ReplicationSlots(Pool pool, MeterRegistry registry) {
        this.pool = pool;
        this.registry = registry;
    }

    @Scheduled(every = "${umbra.replication-slots.measure-interval:15s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> measure() {
        return Statements.execute(pool, RETAINED)
                .invoke(rows -> rows.forEach(row -> bytes(row.getString("slot_name")).set(row.getNumeric("retained").longValue())))
                .onFailure().recoverWithNull()
                .replaceWithVoid();
    }

    private AtomicLong bytes(String slot) {
        return retained.computeIfAbsent(slot, name -> {
            AtomicLong value = new AtomicLong();
            Gauge.builder("umbra.replication.slot.retained.wal", value, AtomicLong::get)
                    .description("Write-ahead log the server keeps for this replication slot (grows while its connector does not stream)")
                    .baseUnit("bytes")
                    .tag("slot", name)
                    .register(registry);
            return value;
        });
    }
}
