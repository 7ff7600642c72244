package dev.umbra.billing.payment;

import dev.umbra.billing.gateway.GatewayGuard;
import dev.umbra.platform.workqueue.Outcome;
import dev.umbra.platform.workqueue.PagedRun;
import dev.umbra.platform.workqueue.RecurringWork;
import dev.umbra.platform.workqueue.WorkItem;
import dev.umbra.platform.storage.Statements;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;

/**
 * A recurring job that settles with the payment gateway what billing could not settle at once (payments
 * and refunds left uncertain, charges to give back): the one item of its work queue, run every
 * {@code billing.reconciliation.interval} by one replica at a time, and not started while the look-up
 * circuit is open, since every look-up of the run would be refused.
 */
public abstract class GatewayJob implements RecurringWork {

    private final String queue;
    private final GatewayGuard lookups;
    protected final ReconciliationSettings settings;
    protected final Clock clock;

    /** For the container only: its client proxies and interceptor subclasses of a job delegate, and never read these. */
    protected GatewayJob() {
        this(null, null, null, null);
    }

    protected GatewayJob(String queue, GatewayGuard lookups, ReconciliationSettings settings, Clock clock) {
        this.queue = queue;
        this.lookups = lookups;
        this.settings = settings;
        this.clock = clock;
    }

    /** One run, whoever holds the lease (the work queue calls it; tests call it to play two replicas whose runs overlap). */
    public abstract Uni<? extends PagedRun.Summary<?>> run();

    /**
     * A run over the candidates {@code page} reads, {@code billing.reconciliation.concurrency} at once, halted
     * when the look-up circuit opens or refuses a call (half-open, it lets only its trial calls through): the
     * candidates not reached wait for it to close, not for the next interval.
     */
    protected <C, R extends Enum<R>> Uni<PagedRun.Summary<R>> over(Class<R> resultType, Function<Set<UUID>, Uni<List<C>>> page,
            Function<C, UUID> id, Function<C, Uni<R>> handle) {
        // a refusal by the other circuit (the cancels') halts nothing: those candidates wait for the next run
        return PagedRun.over(resultType, settings.concurrency(), lookups::circuitOpen,
                error -> error instanceof CircuitBreakerOpenException && !lookups.circuitClosed(), page, id, handle);
    }

    /**
     * The page reader of {@link #over}: {@code sql} takes the {@code leading} values, then the ids this run has
     * tried already (skipped), then the page size; each row becomes a candidate.
     */
    protected <C> Function<Set<UUID>, Uni<List<C>>> page(Pool pool, String sql, Function<Row, C> candidate, Object... leading) {
        return tried -> {
            List<Object> values = new ArrayList<>(Arrays.asList(leading));
            values.add(tried.toArray(UUID[]::new));
            values.add(settings.pageSize());
            return Statements.execute(pool, sql, Tuple.tuple(values)).map(rows -> {
                List<C> candidates = new ArrayList<>();
                for (Row row : rows) {
                    candidates.add(candidate.apply(row));
                }
                return candidates;
            });
        };
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public boolean ready() {
        return !lookups.circuitOpen();
    }

    /** The next run one interval on; at once (the queue claims nothing while the circuit is open) after a run the open circuit halted. */
    @Override
    public Uni<Outcome> handle(WorkItem item) {
        Instant next = clock.instant().plus(settings.interval());
        return run().map(summary -> summary.halted() ? Outcome.deferred("halted by the open look-up circuit", clock.instant())
                        : Outcome.scheduled("next run", next))
                .onFailure().recoverWithItem(error -> Outcome.unavailable("run failed: " + error, next));
    }
}
