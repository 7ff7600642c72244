package dev.umbra.audit.retention;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.umbra.platform.storage.NativeSelects;
import dev.umbra.platform.workqueue.Outcome;
import dev.umbra.platform.workqueue.RecurringWork;
import dev.umbra.platform.workqueue.WorkItem;
import dev.umbra.platform.workqueue.WorkQueue;
import dev.umbra.platform.workqueue.WorkQueues;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Keeps the audit log's month partitions: creates the coming months' ahead of time and drops whole
 * months older than {@link RetentionSettings#keepMonths()} (rows are never deleted one by one: the log
 * refuses DELETE). Rows that fell into a default partition (no month took them) are first moved into
 * their months, or dropped with the old default when they are older than what is kept. Runs are one item of the {@value #QUEUE} work queue, leased by one replica at a time
 * and put back in line for the next run.
 */
@ApplicationScoped
public class AuditRetention implements RecurringWork {

    static final String QUEUE = "audit-retention";
    private static final Logger LOG = Logger.getLogger(AuditRetention.class);
    private static final String PARTITIONS = "select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid "
            + "join pg_class p on p.oid = i.inhparent where p.relname in ('audit_log', 'audit_guild')";

    /** What a run did; {@code rehomed}: rows moved out of the default partitions into their months. */
    public record RunSummary(int created, List<String> dropped, int rehomed) {
    }

    private final RetentionSettings settings;
    private final Clock clock;
    private final WorkQueue queue;

    public AuditRetention(RetentionSettings settings, Clock clock, WorkQueues queues) {
        this.settings = settings;
        this.clock = clock;
        this.queue = queues.queue(QUEUE);
    }


    @Override
    public String queue() {
        return QUEUE;
    }

    @Override
    public Uni<Outcome> handle(WorkItem item) {
        return RecurringWork.nextRunAt(clock.instant().plus(settings.interval()), run());
    }

    /** One round of the work queue by hand: runs if the run item is due and no other replica holds it; returns 1 if it ran. */
    public Uni<Integer> runOnce() {
        return queue.runOnce(this);
    }

    /** Makes the run item due now (tests, or an operator who changed the settings). */
    public Uni<Void> runSoon() {
        return Panache.withTransaction(() -> queue.schedule(RUN, JsonNodeFactory.instance.objectNode(), clock.instant()));
    }

    Uni<RunSummary> run() {
        Instant now = clock.instant();
        Instant keptFrom = MonthPartitions.keptFrom(now, settings.keepMonths());
        return Panache.withTransaction(() -> Panache.getSession().chain(session -> NativeSelects
                        .select(session, "select audit_rehome_default(cast($1 as timestamptz))", keptFrom)
                        .map(NativeSelects.single(Integer.class))
                        .chain(rehomed -> NativeSelects
                                .select(session, "select audit_create_partitions(cast($1 as timestamptz), $2)", now, settings.monthsAhead() + 1)
                                .map(NativeSelects.single(Integer.class))
                                .chain(created -> NativeSelects.select(session, PARTITIONS).map(NativeSelects.column(String.class))
                                        .map(names -> MonthPartitions.toDrop(names, keptFrom))
                                        .chain(dropped -> drop(dropped, 0)
                                                .chain(() -> session.createNativeQuery("delete from audit_unattributed where occurred_at < cast(?1 as timestamptz)")
                                                        .setParameter(1, keptFrom.atOffset(ZoneOffset.UTC)).executeUpdate())
                                                .replaceWith(new RunSummary(created, dropped, rehomed)))))))
                .invoke(summary -> {
                    if (summary.created() > 0 || !summary.dropped().isEmpty() || summary.rehomed() > 0) {
                        LOG.infof("audit retention moved %d rows out of the default partitions into their months, created %d month partitions ahead and "
                                + "dropped %s (kept from %s)", summary.rehomed(), summary.created(), summary.dropped(), keptFrom);
                    }
                });
    }

    private Uni<Void> drop(List<String> partitions, int from) {
        if (from == partitions.size()) {
            return Uni.createFrom().voidItem();
        }
        // names come from pg_class and matched MonthPartitions' pattern: letters, digits and '_' only
        return Panache.getSession().chain(session -> session.createNativeQuery("drop table if exists " + partitions.get(from)).executeUpdate())
                .chain(() -> drop(partitions, from + 1));
    }
}
