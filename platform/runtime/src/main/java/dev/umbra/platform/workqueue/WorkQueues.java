package dev.umbra.platform.workqueue;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduler;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jboss.logging.Logger;

/**
 * The work queues of a service, and the poller of each {@link WorkHandler} bean: every
 * {@code umbra.work-queue.<queue>.poll-interval} one round (claim, try, record), then the gauges.
 */
@ApplicationScoped
public class WorkQueues {

    private static final Logger LOG = Logger.getLogger(WorkQueues.class);

    private final Pool pool;
    private final Clock clock;
    private final WorkQueueConfig config;
    private final MeterRegistry registry;
    private final Map<String, WorkQueue> queues = new ConcurrentHashMap<>();
    private final List<String> jobs = new CopyOnWriteArrayList<>();
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
                    .setConcurrentExecution(Scheduled.ConcurrentExecution.SKIP)
                    .setAsyncTask(execution -> OwnContext.run(vertx.getOrCreateContext(), () -> round(queue, handler)))
                    .schedule();
        }
    }

    /** No new round once the application stops: the database pool closes under it. A leased item left behind is taken again after its lease. */
    void stop(@Observes ShutdownEvent stopped) {
        stopping = true;
        if (scheduler != null) {
            jobs.forEach(scheduler::unscheduleJob);
        }
    }

    private Uni<Void> round(WorkQueue queue, WorkHandler handler) {
        if (stopping) {
            return Uni.createFrom().voidItem();
        }
        return queue.runOnce(handler)
                .onFailure().invoke(e -> report("round failed, the next one tries again", queue, e))
                .onFailure().recoverWithNull()
                .chain(queue::measure)
                .onFailure().invoke(e -> report("gauges not refreshed", queue, e))
                .onFailure().recoverWithNull();
    }

    private void report(String what, WorkQueue queue, Throwable e) {
        if (stopping) {
            LOG.debugf("work queue %s: %s while the application stops: %s", queue.name(), what, e);
        } else {
            LOG.warnf("work queue %s: %s: %s", queue.name(), what, e.toString());
        }
    }
}
