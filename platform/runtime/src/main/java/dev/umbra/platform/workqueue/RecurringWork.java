package dev.umbra.platform.workqueue;

import io.smallrye.mutiny.Uni;
import java.time.Instant;

/**
 * Work that runs again and again (a reconciliation, a retention or trim job): the one item {@link #RUN}
 * of its queue, which each run puts back in line for the next ({@link Outcome#deferred}), so one replica
 * runs it at a time. {@link WorkQueues} puts the item in line before the queue's first round rather
 * than at start, so a database that is away or slow while the service starts delays the first run
 * instead of failing the start.
 */
public interface RecurringWork extends WorkHandler {

    /** The key of the queue's one item. */
    String RUN = "run";

    /** A run that killed or hung its worker again and again: the next one comes after a backoff, as runs must never stop. */
    @Override
    default Uni<Outcome> abandoned(WorkItem item, String reason) {
        return Uni.createFrom().item(Outcome.deferred(reason, null));
    }

    /**
     * The outcome of a run for {@link #handle}: the next run is due at {@code next}, also after a run that
     * failed (a database or a gateway away): that one is simply the next run's work.
     */
    static Uni<Outcome> nextRunAt(Instant next, Uni<?> run) {
        return run.map(done -> Outcome.scheduled("next run", next))
                .onFailure().recoverWithItem(error -> Outcome.unavailable("run failed: " + error, next));
    }
}
