package dev.umbra.platform.workqueue;

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
}
