package dev.umbra.licensing.license;

import dev.umbra.platform.workqueue.Outcome;
import dev.umbra.platform.workqueue.WorkHandler;
import dev.umbra.platform.workqueue.WorkItem;
import dev.umbra.platform.workqueue.WorkQueue;
import dev.umbra.platform.workqueue.WorkQueues;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Downgrades paid licenses whose period ended more than the grace ago, and applies downgrades that
 * came due. Each license with something to sweep is an item of the {@value #QUEUE} work queue, due
 * when the sweep would change it ({@link LicenseRules#nextSweepAt}); the license's own changes keep
 * that time up to date. Replicas claim disjoint items; the sweep's transaction first re-checks that
 * it still holds the item's lease, so a sweeper that lost its lease changes nothing.
 */
@ApplicationScoped
public class LicenseSweeper implements WorkHandler {

    static final String QUEUE = "license-sweep";

    private final LicenseService licenses;
    private final WorkQueue queue;
    private final Clock clock;
    private final Duration grace;

    public LicenseSweeper(LicenseService licenses, WorkQueues queues, Clock clock,
            @ConfigProperty(name = "licensing.sweeper.grace") Duration grace) {
        this.licenses = licenses;
        this.queue = queues.queue(QUEUE);
        this.clock = clock;
        this.grace = grace;
    }

    @Override
    public String queue() {
        return QUEUE;
    }

    /** One round by hand (the scheduled rounds do the same); returns how many licenses were claimed. */
    public Uni<Integer> sweep() {
        return queue.runOnce(this);
    }

    @Override
    public Uni<Outcome> handle(WorkItem item) {
        Instant now = clock.instant();
        return Panache.withTransaction(() -> queue.holdsLease(item).chain(held -> {
            if (!held) {
                return Uni.createFrom().item(Outcome.done());
            }
            return License.<License>findById(UUID.fromString(item.key())).chain(license -> license == null
                    ? Uni.createFrom().item(Outcome.poison("no license " + item.key()))
                    : licenses.sweep(license, now).map(this::nextSweep));
        }));
    }

    private Outcome nextSweep(LicenseState swept) {
        Instant next = LicenseRules.nextSweepAt(swept, grace);
        return next == null ? Outcome.done() : Outcome.scheduled("next sweep at " + next, next);
    }
}
