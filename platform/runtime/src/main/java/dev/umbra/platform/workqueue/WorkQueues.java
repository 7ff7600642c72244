package dev.umbra.platform.workqueue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduler;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jboss.logging.Logger;

/**
 * The work queues of a service, and the poller of each {@link WorkHandler} bean: every
 * {@code umbra.work-queue.<queue>.poll-interval} rounds (claim, try, record, then the gauges) until the due
 * items are worked off ({@link WorkQueue#drain}). A tick while a round is under way does nothing, unless that
 * round has stalled ({@link WorkQueue#stalled}): a try that never ends must not stop the queue for good, so
 * another round starts, and takes that try's item over once its lease has run out.
 */
@ApplicationScoped
public class WorkQueues {

    private static final Logger LOG = Logger.getLogger(WorkQueues.class);
    private static final Duration REPORT_INTERVAL = Duration.ofMinutes(1);
    /** Rounds failing for less than this are a database or pool busy for a moment (a replay of every topic, a restart). */
    private static final Duration REPORTED_AFTER = Duration.ofSeconds(30);

    private final Pool pool;
    private final Clock clock;
    private final WorkQueueConfig config;
    private final MeterRegistry registry;
    private final Map<String, WorkQueue> queues = new ConcurrentHashMap<>();
    private final List<String> jobs = new CopyOnWriteArrayList<>();
    private final Set<String> recurringItems = ConcurrentHashMap.newKeySet();
    private final Map<String, RoundFailures> failures = new ConcurrentHashMap<>();
    /** The round under way per queue, as an identity. */
    private final Map<String, Object> rounds = new ConcurrentHashMap<>();
    private volatile Scheduler scheduler;
    private volatile boolean stopping;

    public WorkQueues(Pool pool, Clock clock, WorkQueueConfig config, MeterRegistry registry) {
        this.pool = pool;
        this.clock = clock;
        this.config = config;
        this.registry = registry;
    }

    public WorkQueue queue(String name) {
        return queues.computeIfAbsent(name, n -> new WorkQueue(n, pool, clock, config.of(n), registry));
    }

    void poll(@Observes StartupEvent started, Instance<WorkHandler> handlers, Scheduler scheduler, Vertx vertx) {
        this.scheduler = scheduler;
        for (WorkHandler handler : handlers) {
            WorkQueue queue = queue(handler.queue());
            if (!queue.settings().polling()) {
                continue;
            }
            jobs.add("work-queue-" + queue.name());
            scheduler.newJob("work-queue-" + queue.name())
                    .setInterval(queue.settings().pollInterval().toString())
                    .setAsyncTask(execution -> OwnContext.run(vertx.getOrCreateContext(), () -> tick(queue, handler)))
                    .schedule();
        }
    }

    /** No new round once the application stops: the database pool closes under it. A leased item left behind is taken again after its lease. */
    void stop(@Observes ShutdownEvent stopped) {
        stopping = true;
        if (scheduler != null) {
            jobs.forEach(scheduler::unscheduleJob);
        }
        queues.values().forEach(WorkQueue::unregister);
    }

    private Uni<Void> tick(WorkQueue queue, WorkHandler handler) {
        Object round = new Object();
        boolean[] overtaking = new boolean[1];
        Object current = rounds.compute(queue.name(), (name, running) -> {
            if (running == null) {
                return round;
            }
            overtaking[0] = queue.stalled();
            return overtaking[0] ? round : running;
        });
        if (current != round) {
            return Uni.createFrom().voidItem();
        }
        queue.roundStarted();
        if (overtaking[0]) {
            LOG.warnf("work queue %s: its round under way has shown no progress for longer than a lease (%s): a try neither ends nor "
                    + "renews its lease. Another round starts; it takes that item over once its lease has run out", queue.name(),
                    queue.settings().lease());
        }
        return round(queue, handler).eventually(() -> {
            rounds.remove(queue.name(), round);
        });
    }

    private Uni<Void> round(WorkQueue queue, WorkHandler handler) {
        if (stopping) {
            return Uni.createFrom().voidItem();
        }
        return recurringItemOf(queue, handler)
                .chain(() -> queue.drain(handler, () -> stopping).replaceWithVoid())
                .invoke(() -> outage(queue).over(queue))
                .onFailure().invoke(e -> outage(queue).failed(queue, e))
                .onFailure().recoverWithNull();
    }

    /** Puts the run item of recurring work in line, once per queue and start; an item already there is left alone. */
    private Uni<Void> recurringItemOf(WorkQueue queue, WorkHandler handler) {
        if (!(handler instanceof RecurringWork) || recurringItems.contains(queue.name())) {
            return Uni.createFrom().voidItem();
        }
        return Panache.withTransaction(() -> queue.enqueue(RecurringWork.RUN, JsonNodeFactory.instance.objectNode(), clock.instant()))
                .invoke(() -> recurringItems.add(queue.name()));
    }

    private RoundFailures outage(WorkQueue queue) {
        return failures.computeIfAbsent(queue.name(), n -> new RoundFailures());
    }

    /**
     * Rounds that fail in a row, almost always because the database is away or busy: failed rounds (a connection not
     * acquired in time) are nothing to report while they last less than {@link #REPORTED_AFTER}, as the next one, a poll
     * interval later, tries again; a consumer group read again from its start can keep the pool busy for seconds. From then
     * on one line, then one a minute while it lasts, and one when a round succeeds again.
     */
    private final class RoundFailures {

        private int inARow;
        private long firstFailed;
        private long lastReported;
        private boolean reported;

        synchronized void failed(WorkQueue queue, Throwable e) {
            long now = System.nanoTime();
            if (inARow++ == 0) {
                firstFailed = now;
            }
            if (stopping || now - firstFailed < REPORTED_AFTER.toNanos()) {
                LOG.debugf("work queue %s: round failed (%d in a row): %s", queue.name(), inARow, e);
            } else if (!reported || now - lastReported >= REPORT_INTERVAL.toNanos()) {
                reported = true;
                lastReported = now;
                LOG.warnf("work queue %s: round failed (%d in a row, for %d s; the next one tries again): %s", queue.name(), inARow,
                        Duration.ofNanos(now - firstFailed).toSeconds(), e.toString());
            }
        }

        synchronized void over(WorkQueue queue) {
            if (reported) {
                LOG.infof("work queue %s: rounds succeed again after %d failed", queue.name(), inARow);
            }
            inARow = 0;
            reported = false;
        }
    }
}
