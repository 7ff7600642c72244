package dev.umbra.audit.retention;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.umbra.platform.storage.Statements;
import dev.umbra.platform.storage.StorageFaults;
import dev.umbra.platform.workqueue.Outcome;
import dev.umbra.platform.workqueue.RecurringWork;
import dev.umbra.platform.workqueue.WorkItem;
import dev.umbra.platform.workqueue.WorkQueue;
import dev.umbra.platform.workqueue.WorkQueues;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * Keeps the audit log's month partitions: creates the coming months' ahead of time, drops whole months
 * older than {@link RetentionSettings#keepMonths()} (rows are never deleted one by one: the log refuses
 * DELETE), and moves the rows that fell into a default partition (no month took them) into their months.
 * Each step runs in transactions of its own, in that order, so that a step that fails (reported in the
 * run's outcome and logged) holds none of the others back: the coming months are there and the old ones
 * gone whatever the defaults hold. Runs are one item of the {@value #QUEUE} work queue, leased by one
 * replica at a time and put back in line for the next run.
 *
 * <p>The rows of a default partition go a batch per statement ({@link RetentionSettings#rehomeBatchSize()}),
 * month by month (migration V10 says why so): copied into a table of their month, a batch per transaction,
 * while queries still find them in the default; then, in one transaction, taken out of the default (those
 * copied already are not copied twice) as that table is attached as the month. A run cut short keeps the
 * batches it copied. Rows older than what is kept are deleted from the defaults a batch per transaction.
 */
@ApplicationScoped
public class AuditRetention implements RecurringWork {

    static final String QUEUE = "audit-retention";
    private static final Logger LOG = Logger.getLogger(AuditRetention.class);
    private static final List<String> TABLES = List.of("audit_log", "audit_guild");
    /** Month partitions, and month tables staged for a default's rows and not attached yet. */
    private static final String MONTH_TABLES = "select relname::text from pg_class where relkind = 'r' "
            + "and relnamespace = current_schema()::regnamespace and relname ~ '^audit_(log|guild)_[0-9]{4}_[0-9]{2}$'";
    private static final DateTimeFormatter MONTH = DateTimeFormatter.ofPattern("yyyy_MM");

    /**
     * What a run did: month partitions created ahead, month tables dropped, rows older than what is kept
     * deleted from the defaults ({@code purged}), rows moved out of the defaults into their months
     * ({@code rehomed}, into the month tables {@code homed}), and each step that failed, with its error;
     * {@code failuresPass}: every one of those failures was a fault that passes ({@link StorageFaults#isTransient}).
     */
    public record RunSummary(int created, List<String> dropped, long purged, long rehomed, List<String> homed, List<String> failures,
            boolean failuresPass) {
    }

    private final RetentionSettings settings;
    private final Clock clock;
    private final Pool pool;
    private final WorkQueue queue;

    public AuditRetention(RetentionSettings settings, Clock clock, Pool pool, WorkQueues queues) {
        this.settings = settings;
        this.clock = clock;
        this.pool = pool;
        this.queue = queues.queue(QUEUE);
    }


    @Override
    public String queue() {
        return QUEUE;
    }

    /**
     * The next run one interval on. A run with a failed step is {@link Outcome.Unavailable}, never dead: the run
     * after it tries every step again, after the queue's backoff when each failure was a fault that passes (a
     * lock not granted in time, a statement timeout, the database away), else at the next interval.
     */
    @Override
    public Uni<Outcome> handle(WorkItem item) {
        Instant next = clock.instant().plus(settings.interval());
        return run().map(summary -> summary.failures().isEmpty() ? Outcome.scheduled("next run", next)
                        : Outcome.unavailable("run failed: " + String.join("; ", summary.failures()), summary.failuresPass() ? null : next))
                .onFailure().recoverWithItem(error -> Outcome.unavailable("run failed: " + error, next));
    }

    /** One round of the work queue by hand: runs if the run item is due and no other replica holds it; returns 1 if it ran. */
    public Uni<Integer> runOnce() {
        return queue.runOnce(this);
    }

    /** Makes the run item due now (tests, or an operator who changed the settings). */
    public Uni<Void> runSoon() {
        return Panache.withTransaction(() -> queue.schedule(RUN, JsonNodeFactory.instance.objectNode(), clock.instant()));
    }

    /** One run, whoever holds the lease (the work queue calls it; tests call it to play two replicas whose runs overlap). */
    Uni<RunSummary> run() {
        Instant now = clock.instant();
        Instant keptFrom = MonthPartitions.keptFrom(now, settings.keepMonths());
        Run run = new Run();
        return run.step("creating the coming months", single("select audit_create_partitions($1, $2)",
                        Tuple.of(utc(now), settings.monthsAhead() + 1)).invoke(created -> run.created = created))
                .chain(() -> run.step("dropping the months older than what is kept", dropExpired(keptFrom).invoke(run.dropped::addAll)))
                .chain(() -> run.step("forgetting the waiting attributions older than what is kept",
                        Statements.execute(pool, "delete from audit_unattributed where occurred_at < $1", Tuple.of(utc(keptFrom)))))
                .chain(() -> inTurn(TABLES, table -> rehome(run, table, keptFrom)))
                .map(done -> run.summary())
                .invoke(summary -> {
                    if (summary.created() > 0 || !summary.dropped().isEmpty() || summary.purged() > 0 || summary.rehomed() > 0) {
                        LOG.infof("audit retention created %d month partitions ahead, dropped %s, deleted %d rows older than what is kept from "
                                + "the default partitions and moved %d rows out of them into their months %s (kept from %s)", summary.created(),
                                summary.dropped(), summary.purged(), summary.rehomed(), summary.homed(), keptFrom);
                    }
                });
    }

    private Uni<List<String>> dropExpired(Instant keptFrom) {
        return Statements.execute(pool, MONTH_TABLES)
                .map(rows -> MonthPartitions.toDrop(column(rows, row -> row.getString(0)), keptFrom))
                .call(expired -> inTurn(expired, name -> single("select audit_drop_month_table($1)", Tuple.of(name)).replaceWithVoid()));
    }

    /** Empties the table's default partition: its rows past keeping deleted, each month of the others moved into its partition. */
    private Uni<Void> rehome(Run run, String table, Instant keptFrom) {
        return run.step("deleting the rows of " + table + "_default older than what is kept",
                        batches("select audit_purge_default($1, $2, $3)", Tuple.of(table, utc(keptFrom), settings.rehomeBatchSize()), 0)
                                .invoke(purged -> run.purged += purged))
                .chain(() -> Statements.execute(pool, "select month from audit_default_months($1, $2) month", Tuple.of(table, utc(keptFrom)))
                        .map(rows -> column(rows, row -> row.getOffsetDateTime(0)))
                        .onFailure().recoverWithItem(error -> {
                            run.failed("reading the months of " + table + "_default", error);
                            return List.of();
                        }))
                .chain(months -> inTurn(months, month -> {
                    String monthTable = table + "_" + month.format(MONTH);
                    return run.step("moving the rows of " + table + "_default into " + monthTable, home(table, month).invoke(homing -> {
                        run.rehomed += homing.moved();
                        if (homing.attached()) {
                            run.homed.add(monthTable);
                        }
                    }));
                }));
    }

    /** Rows taken out of a default into their month's table, and whether this run attached that table (another run may have). */
    private record Homing(long moved, boolean attached) {
    }

    /** Copies the month's rows out of the default a batch per transaction, then moves them and attaches their table in one. */
    private Uni<Homing> home(String table, OffsetDateTime month) {
        int batch = settings.rehomeBatchSize();
        return batches("select audit_stage_month($1, $2, $3)", Tuple.of(table, month, batch), 0)
                .chain(() -> pool.withTransaction(connection -> moveStaged(connection, table, month, null, null, 0)
                        .chain(moved -> connection.preparedQuery("select audit_attach_staged($1, $2)").execute(Tuple.of(table, month))
                                .map(rows -> new Homing(moved, rows.iterator().next().getInteger(0) == 1)))));
    }

    /** The rows of the month left in the default, a batch per statement, each after the last one moved. */
    private Uni<Long> moveStaged(SqlConnection connection, String table, OffsetDateTime month, OffsetDateTime afterOccurred, UUID afterEvent,
            long sofar) {
        int batch = settings.rehomeBatchSize();
        return connection.preparedQuery("select last_occurred, last_event, moved from audit_move_staged($1, $2, $3, $4, $5)")
                .execute(Tuple.tuple(Arrays.asList(table, month, batch, afterOccurred, afterEvent)))
                .chain(rows -> {
                    Row row = rows.iterator().next();
                    int moved = row.getInteger("moved");
                    return moved < batch ? Uni.createFrom().item(sofar + moved)
                            : moveStaged(connection, table, month, row.getOffsetDateTime("last_occurred"), row.getUUID("last_event"), sofar + moved);
                });
    }

    /** Runs {@code statement} (one batch, its own transaction, answering how many rows it did) until a batch falls short. */
    private Uni<Long> batches(String statement, Tuple arguments, long sofar) {
        return single(statement, arguments).chain(done -> done < settings.rehomeBatchSize() ? Uni.createFrom().item(sofar + done)
                : batches(statement, arguments, sofar + done));
    }

    private Uni<Integer> single(String statement, Tuple arguments) {
        return Statements.execute(pool, statement, arguments).map(rows -> rows.iterator().next().getInteger(0));
    }

    private static <T> Uni<Void> inTurn(List<T> items, Function<T, Uni<Void>> work) {
        Uni<Void> chain = Uni.createFrom().voidItem();
        for (T item : items) {
            chain = chain.chain(() -> work.apply(item));
        }
        return chain;
    }

    private static <T> List<T> column(Iterable<Row> rows, Function<Row, T> value) {
        List<T> values = new ArrayList<>();
        rows.forEach(row -> values.add(value.apply(row)));
        return values;
    }

    private static OffsetDateTime utc(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }

    /** What a run did so far; its steps run one after the other. */
    private static final class Run {

        private int created;
        private final List<String> dropped = new ArrayList<>();
        private long purged;
        private long rehomed;
        private final List<String> homed = new ArrayList<>();
        private final List<String> failures = new ArrayList<>();
        private boolean failuresPass = true;

        /** The step's work; a failure is recorded and logged, and the run goes on with its next step. */
        Uni<Void> step(String what, Uni<?> work) {
            return work.replaceWithVoid().onFailure().recoverWithUni(error -> {
                failed(what, error);
                return Uni.createFrom().voidItem();
            });
        }

        void failed(String what, Throwable error) {
            LOG.warnf("audit retention: %s failed, the next run tries again: %s", what, error.toString());
            failures.add(what + ": " + error);
            failuresPass &= StorageFaults.isTransient(error);
        }

        RunSummary summary() {
            return new RunSummary(created, List.copyOf(dropped), purged, rehomed, List.copyOf(homed), List.copyOf(failures), failuresPass);
        }
    }
}
