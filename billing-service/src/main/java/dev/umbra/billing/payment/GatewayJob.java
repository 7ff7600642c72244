package dev.umbra.billing.payment;

import dev.umbra.billing.gateway.GatewayGuard;
import dev.umbra.platform.workqueue.Outcome;
import dev.umbra.platform.workqueue.RecurringWork;
import dev.umbra.platform.workqueue.WorkItem;
import io.smallrye.mutiny.Uni;
import java.time.Clock;

/**
 * A recurring job that settles with the payment gateway what billing could not settle at once (payments
 * and refunds left uncertain, charges to give back): the one item of its work queue, run every
 * {@code billing.reconciliation.interval} by one replica at a time, and not started while the look-up
 * circuit is open, since every look-up of the run would be refused.
 */
public abstract class GatewayJob implements RecurringWork {

    private final String queue;
    private final GatewayGuard lookups;
    protected final ReconciliationSettings settings;
    protected final Clock clock;

    /** For the container only: its client proxies and interceptor subclasses of a job delegate, and never read these. */
    protected GatewayJob() {
        this(null, null, null, null);
    }

    protected GatewayJob(String queue, GatewayGuard lookups, ReconciliationSettings settings, Clock clock) {
        this.queue = queue;
        this.lookups = lookups;
        this.settings = settings;
        this.clock = clock;
    }

    /** One run, whoever holds the lease (the work queue calls it; tests call it to play two replicas whose runs overlap). */
    public abstract Uni<?> run();

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public boolean ready() {
        return !lookups.circuitOpen();
    }

    @Override
    public Uni<Outcome> handle(WorkItem item) {
        return RecurringWork.nextRunAt(clock.instant().plus(settings.interval()), run());
    }
}
