package dev.umbra.platform.workqueue;

import io.smallrye.mutiny.Uni;

/**
 * The work of one queue. A bean implementing it is polled by {@link WorkQueues}: due items are claimed
 * in a short transaction and handed over one by one, outside any transaction; the outcome is recorded
 * only if the lease is still this worker's. A handler failure (an exception) counts as {@link Outcome.Failed}.
 */
public interface WorkHandler {

    String queue();

    Uni<Outcome> handle(WorkItem item);

    /**
     * The item's claims ran out more than {@code max-abandoned-claims} times in a row with nothing recorded:
     * its tries kill or hang the worker, so it is not tried again. Dead with the reason by default; a handler
     * whose item stands for state of its own (a job) ends that too. Bookkeeping only: never the item's work.
     */
    default Uni<Outcome> abandoned(WorkItem item, String reason) {
        return Uni.createFrom().item(Outcome.poison(reason));
    }

    /** False while the far side is known to be down (an open circuit): the round then claims nothing. */
    default boolean ready() {
        return true;
    }
}
