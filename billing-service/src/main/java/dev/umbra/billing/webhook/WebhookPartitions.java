package dev.umbra.billing.webhook;

import dev.umbra.platform.storage.StorageFaults;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import org.jboss.logging.Logger;

/**
 * Keeps the monthly partitions of webhook_events ahead of time (the migration made the first ones).
 * Each replica checks daily, the first time a minute after its start (the migration made the months
 * ahead, and a start is the pool's busiest moment), retrying a failed check within the half hour; the
 * statement creates only what is missing, and a replica that loses the race to create one simply finds
 * it there the next day.
 */
@ApplicationScoped
class WebhookPartitions {

    private static final Logger LOG = Logger.getLogger(WebhookPartitions.class);
    private static final Duration FIRST_RETRY = Duration.ofSeconds(5);
    private static final Duration LAST_RETRY = Duration.ofMinutes(5);
    private static final int RETRIES = 12;

    private final WebhookEvents events;
    private final WebhookSettings settings;

    WebhookPartitions(WebhookEvents events, WebhookSettings settings) {
        this.events = events;
        this.settings = settings;
    }

    @Scheduled(every = "24h", delayed = "1m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> ensureAhead() {
        return events.ensurePartitions(settings.partitionsAhead())
                // a busy or restarting database at the daily check (often right at start) is not worth a day's wait
                .onFailure(StorageFaults::isTransient).invoke(e -> LOG.debugf("webhook_events: partitions ahead not checked yet: %s", e))
                .onFailure(StorageFaults::isTransient).retry().withBackOff(FIRST_RETRY, LAST_RETRY).atMost(RETRIES)
                .invoke(created -> {
                    if (created > 0) {
                        LOG.infof("webhook_events: %d monthly partition(s) created ahead", created);
                    }
                })
                .onFailure().invoke(e -> LOG.warnf("webhook_events: partitions ahead not checked (tried %d times over about half an hour), "
                        + "the next daily check tries again: %s", RETRIES + 1, e.toString()))
                .onFailure().recoverWithNull()
                .replaceWithVoid();
    }
}
