package dev.umbra.billing.subscription;

import dev.umbra.billing.settings.BillingSettings;
import dev.umbra.platform.workqueue.Outcome;
import dev.umbra.platform.workqueue.WorkHandler;
import dev.umbra.platform.workqueue.WorkItem;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import org.jboss.logging.Logger;

/**
 * The periodic renewal scan, as the one item of the work queue {@value #QUEUE} (created by migration
 * V4): whoever claims it scans and puts it back in line one scan interval later, so one replica scans
 * at a time and a scan that dies with its replica is taken over when the lease runs out.
 */
@ApplicationScoped
public class RenewalScan implements WorkHandler {

    static final String QUEUE = "renewal-scan";

    private static final Logger LOG = Logger.getLogger(RenewalScan.class);

    private final Renewals renewals;
    private final BillingSettings settings;
    private final Clock clock;

    public RenewalScan(Renewals renewals, BillingSettings settings, Clock clock) {
        this.renewals = renewals;
        this.settings = settings;
        this.clock = clock;
    }

    @Override
    public String queue() {
        return QUEUE;
    }

    /** Scans must never stop: one that killed or hung its worker again and again is tried again after a backoff. */
    @Override
    public Uni<Outcome> abandoned(WorkItem item, String reason) {
        return Uni.createFrom().item(Outcome.deferred(reason, null));
    }

    @Override
    public Uni<Outcome> handle(WorkItem item) {
        return renewals.scan().map(due -> {
            if (due > 0) {
                LOG.infof("renewal scan: %d subscriptions due", due);
            }
            return Outcome.scheduled("next scan", clock.instant().plus(settings.renewals().scanInterval()));
        });
    }
}
