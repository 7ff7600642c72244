package dev.umbra.platform.inbox;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.umbra.platform.storage.Statements;
import dev.umbra.platform.workqueue.Outcome;
import dev.umbra.platform.workqueue.RecurringWork;
import dev.umbra.platform.workqueue.WorkItem;
import dev.umbra.platform.workqueue.WorkQueue;
import dev.umbra.platform.workqueue.WorkQueueConfig;
import dev.umbra.platform.workqueue.WorkQueues;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * Forgets what is older than the dedupe horizon ({@code umbra.inbox.dedupe.horizon}), a batch per statement
 * until none is left, once per {@code trim-interval}: the inbox's claims, and the work queues' done items. A done
 * item's key refuses the same key enqueued again, and items are often keyed by the event that asked for them
 * (a notification), so one is kept as long as the inbox remembers that event; without the trim every
 * notification would stay in {@code work_item} for good. Dead items stay for an operator, and so do the done
 * items of a queue that keeps them ({@code umbra.work-queue.<queue>.keep-done}). Runs are the one item of the
 * {@value #QUEUE} work queue, so one replica trims at a time; a run cut short by an outage is simply run again
 * (each batch stands on its own).
 */
@ApplicationScoped
public class ProcessedEventTrimmer implements RecurringWork {

    static final String QUEUE = "processed-event-trim";
    private static final Logger LOG = Logger.getLogger(ProcessedEventTrimmer.class);
    /**
     * The horizon is measured on the database's clock, which wrote {@code processed_at}: a service whose own
     * clock runs ahead (skew, or billing's clock moved by the local run and the e2e tests) would otherwise
     * forget claims early, and apply again whatever is then delivered again.
     */
    private static final String TRIM = "delete from processed_event where ctid in (select ctid from processed_event "
            + "where processed_at < now() - make_interval(secs => $1) limit $2 for update skip locked)";
    private static final String TRIM_FINISHED_WORK = "delete from work_item where ctid in (select ctid from work_item "
            + "where status = 'done' and finished_at < now() - make_interval(secs => $1) and queue <> all($3) limit $2 "
            + "for update skip locked)";

    private final Pool pool;
    private final InboxConfig.Dedupe settings;
    private final String[] queuesKeepingDone;
    private final Clock clock;
    private final WorkQueue queue;

    public ProcessedEventTrimmer(Pool pool, InboxConfig config, Clock clock, WorkQueues queues, WorkQueueConfig queueSettings) {
        this.pool = pool;
        this.settings = config.dedupe();
        this.queuesKeepingDone = queueSettings.queues().entrySet().stream().filter(queue -> queue.getValue().keepDone())
                .map(Map.Entry::getKey).toArray(String[]::new);
        this.clock = clock;
        this.queue = queues.queue(QUEUE);
    }


    @Override
    public String queue() {
        return QUEUE;
    }

    @Override
    public Uni<Outcome> handle(WorkItem item) {
        return RecurringWork.nextRunAt(clock.instant().plus(settings.trimInterval()), trim().chain(this::trimFinishedWork));
    }

    /** One round of the work queue by hand: runs if the run item is due and no other replica holds it; returns 1 if it ran. */
    public Uni<Integer> runOnce() {
        return queue.runOnce(this);
    }

    /** Makes the run item due now (tests, or an operator who changed the horizon). */
    public Uni<Void> runSoon() {
        return Panache.withTransaction(() -> queue.schedule(RUN, JsonNodeFactory.instance.objectNode(), clock.instant()));
    }

    /** Deletes every claim older than the horizon, a batch at a time; returns how many. */
    Uni<Long> trim() {
        return batchesFrom(TRIM, Tuple.of(horizonSeconds(), settings.trimBatchSize()), 0).invoke(trimmed -> {
            if (trimmed > 0) {
                LOG.infof("inbox: forgot %d processed events older than the dedupe horizon (%s)", trimmed, settings.horizon());
            }
        });
    }

    /** Deletes every done work item that finished before the horizon, a batch at a time; returns how many. */
    public Uni<Long> trimFinishedWork() {
        return batchesFrom(TRIM_FINISHED_WORK, Tuple.of(horizonSeconds(), settings.trimBatchSize(), queuesKeepingDone), 0).invoke(trimmed -> {
            if (trimmed > 0) {
                LOG.infof("work queues: deleted %d done items finished before the dedupe horizon (%s)", trimmed, settings.horizon());
            }
        });
    }

    private Uni<Long> batchesFrom(String statement, Tuple arguments, long sofar) {
        return Statements.execute(pool, statement, arguments)
                .chain(rows -> rows.rowCount() < settings.trimBatchSize() ? Uni.createFrom().item(sofar + rows.rowCount())
                        : batchesFrom(statement, arguments, sofar + rows.rowCount()));
    }

    private double horizonSeconds() {
        return settings.horizon().toSeconds();
    }
}
