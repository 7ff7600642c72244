package dev.umbra.audit.attribution;

import dev.umbra.platform.storage.Statements;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Gauge {@code umbra_audit_unattributed_events}: events stored whose guild is not known yet. A few come
 * and go as events of one aggregate arrive out of order; a number that only grows means an event that
 * would name their guilds never arrives (a producer's bug, or a topic audit does not read).
 */
@ApplicationScoped
public class AttributionBacklog {

    private final Pool pool;
    private final AtomicLong waiting = new AtomicLong();

    public AttributionBacklog(Pool pool, MeterRegistry registry) {
        this.pool = pool;
        Gauge.builder("umbra.audit.unattributed.events", waiting, AtomicLong::get)
                .description("stored events whose guild is not known yet")
                .register(registry);
    }

    /** Measured now and then rather than on every scrape; while the database is away the last value stays. */
    @Scheduled(every = "${umbra.audit.backlog-interval:30s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> measure() {
        return Statements.execute(pool, "select count(distinct event_id) from audit_unattributed")
                .invoke(rows -> waiting.set(rows.iterator().next().getLong(0)))
                .onFailure().recoverWithNull()
                .replaceWithVoid();
    }
}
