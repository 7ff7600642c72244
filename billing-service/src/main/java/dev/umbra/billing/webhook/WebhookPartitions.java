package dev.umbra.billing.webhook;

import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Keeps the monthly partitions of webhook_events ahead of time (the migration made the first ones).
 * Each replica checks daily; the statement creates only what is missing, and a replica that loses the
 * race to create one simply finds it there the next day. The first check waits a minute after the
 * start: the migration has made the months ahead, and a start is the busiest moment for the pool (a
 * check timing out there waited a whole day for the next one).
 */
@ApplicationScoped
class WebhookPartitions {

    private static final Logger LOG = Logger.getLogger(WebhookPartitions.class);

    private final WebhookEvents events;
    private final WebhookSettings settings;

    WebhookPartitions(WebhookEvents events, WebhookSettings settings) {
        this.events = events;
        this.settings = settings;
    }

    @Scheduled(every = "24h", delayed = "1m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> ensureAhead() {
        return events.ensurePartitions(settings.partitionsAhead())
                .invoke(created -> {
                    if (created > 0) {
                        LOG.infof("webhook_events: %d monthly partition(s) created ahead", created);
                    }
                })
                .onFailure().invoke(e -> LOG.warnf("webhook_events: partitions ahead not checked, tried again tomorrow: %s", e.toString()))
                .onFailure().recoverWithNull()
                .replaceWithVoid();
    }
}
