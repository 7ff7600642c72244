package dev.umbra.platform.workqueue;

import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;

/** Recurring work of {@link WorkQueuePollingIT}, driven by hand: each run schedules the next an hour on. */
@ApplicationScoped
public class RecurringProbe implements RecurringWork {

    static final String QUEUE = "recurring-probe";
    static final Duration INTERVAL = Duration.ofHours(1);

    @Override
    public String queue() {
        return QUEUE;
    }

    @Override
    public Uni<Outcome> handle(WorkItem item) {
        return RecurringWork.nextRunAt(Instant.now().plus(INTERVAL), Uni.createFrom().voidItem());
    }
}
