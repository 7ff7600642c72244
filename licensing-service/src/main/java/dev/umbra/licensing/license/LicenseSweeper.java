package dev.umbra.licensing.license;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Downgrades paid licenses whose period ended more than the grace ago, and applies downgrades that
 * came due. Rows are locked with SKIP LOCKED, so replicas sweeping at the same time share the work
 * instead of doing it twice.
 */
@ApplicationScoped
public class LicenseSweeper {

    private static final Logger LOG = Logger.getLogger(LicenseSweeper.class);
    private static final String DUE = """
            select * from license
            where (paid_plan is not null and not expired and expires_at < :expiredBefore)
               or pending_plan_at <= :now
            order by license_id
            limit :batch
            for update skip locked""";

    private final LicenseService licenses;
    private final Clock clock;
    private final Duration grace;
    private final int batchSize;

    public LicenseSweeper(LicenseService licenses, Clock clock,
            @ConfigProperty(name = "licensing.sweeper.grace") Duration grace,
            @ConfigProperty(name = "licensing.sweeper.batch-size") int batchSize) {
        this.licenses = licenses;
        this.clock = clock;
        this.grace = grace;
        this.batchSize = batchSize;
    }

    @Scheduled(every = "${licensing.sweeper.interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> scheduled() {
        return sweep().invoke(count -> {
            if (count > 0) {
                LOG.infof("swept %d licenses", count);
            }
        }).replaceWithVoid();
    }

    /** One batch in one transaction; returns how many licenses changed. */
    @WithTransaction
    public Uni<Integer> sweep() {
        Instant now = clock.instant();
        return Panache.getSession()
                .chain(session -> session.createNativeQuery(DUE, License.class)
                        .setParameter("expiredBefore", now.minus(grace))
                        .setParameter("now", now)
                        .setParameter("batch", batchSize)
                        .getResultList())
                .chain(due -> sweepEach(due, now).replaceWith(due.size()));
    }

    private Uni<Void> sweepEach(List<License> due, Instant now) {
        Uni<Void> chain = Uni.createFrom().voidItem();
        for (License license : due) {
            chain = chain.chain(() -> licenses.change(license, state -> LicenseRules.sweep(state, now, grace)));
        }
        return chain;
    }
}
