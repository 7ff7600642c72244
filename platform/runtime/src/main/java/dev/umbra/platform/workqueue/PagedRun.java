package dev.umbra.platform.workqueue;

import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jboss.logging.Logger;

/**
 * One run of a recurring job over the rows that need it (a reconciliation, a watch): always the first
 * page of candidates minus the ids already tried in this run, so that rows the run settles (which leave
 * the set) never make a page skip one, and a row left as it was is tried once per run. Up to
 * {@code concurrency} candidates of a page are handled at once (each mostly waits on a far side); one whose
 * handling fails is counted unreachable and left for the next run. Once {@code halted} answers true (the
 * far side's circuit opened), or a handling fails with an error {@code halts} names (a call the circuit
 * refused, half-open ones included), no further candidate is started: the run ends, {@link Summary#halted()},
 * and a candidate refused that way is not counted as examined.
 *
 * @param <C> a candidate as its page query reads it
 * @param <R> what handling one candidate may come to
 */
public final class PagedRun<C, R extends Enum<R>> {

    /**
     * What a run did: candidates examined, how many came to each result, how many failed (tried again next
     * run), and whether it stopped before the last candidate because it was halted.
     */
    public record Summary<R extends Enum<R>>(int examined, Map<R, Integer> results, int unreachable, boolean halted) {

        public int count(R result) {
            return results.getOrDefault(result, 0);
        }
    }

    private static final Logger LOG = Logger.getLogger(PagedRun.class);

    private final int concurrency;
    private final BooleanSupplier halted;
    private final Predicate<Throwable> halts;
    private final Context caller = Vertx.currentContext();
    private final Function<Set<UUID>, Uni<List<C>>> page;
    private final Function<C, UUID> id;
    private final Function<C, Uni<R>> handle;
    private final Set<UUID> tried = new HashSet<>();
    private final Map<R, Integer> results;
    private int unreachable;
    private boolean stopped;
    private int skipped;

    private PagedRun(Class<R> resultType, int concurrency, BooleanSupplier halted, Predicate<Throwable> halts, Function<Set<UUID>, Uni<List<C>>> page,
            Function<C, UUID> id, Function<C, Uni<R>> handle) {
        this.concurrency = concurrency;
        this.halted = halted;
        this.halts = halts;
        this.page = page;
        this.id = id;
        this.handle = handle;
        this.results = new EnumMap<>(resultType);
    }

    /**
     * Runs {@code handle} over every candidate {@code page} reads (given the ids tried so far, it answers
     * the first page of the others; empty when none is left).
     */
    public static <C, R extends Enum<R>> Uni<Summary<R>> over(Class<R> resultType, int concurrency, BooleanSupplier halted, Predicate<Throwable> halts,
            Function<Set<UUID>, Uni<List<C>>> page, Function<C, UUID> id, Function<C, Uni<R>> handle) {
        PagedRun<C, R> run = new PagedRun<>(resultType, concurrency, halted, halts, page, id, handle);
        return run.pages().map(done -> run.summary());
    }

    private synchronized Summary<R> summary() {
        return new Summary<>(tried.size() - skipped, Map.copyOf(results), unreachable, stopped);
    }

    private Uni<Void> pages() {
        if (isStopped()) {
            return Uni.createFrom().voidItem();
        }
        return page.apply(Set.copyOf(tried)).chain(candidates -> {
            if (candidates.isEmpty()) {
                return Uni.createFrom().voidItem();
            }
            candidates.forEach(candidate -> tried.add(id.apply(candidate)));
            return Multi.createFrom().iterable(candidates)
                    .onItem().transformToUni(candidate -> Uni.createFrom().deferred(() -> start(candidate))).merge(concurrency)
                    .collect().last()
                    .chain(this::pages);
        });
    }

    private Uni<Void> start(C candidate) {
        if (haltNow()) {
            return Uni.createFrom().voidItem();
        }
        // each candidate on a context of its own: Hibernate Reactive keeps its session in the context, and handlings side by side must not share one
        return OwnContext.runOn(caller, () -> handle.apply(candidate))
                .invoke(this::count)
                .onFailure().invoke(error -> {
                    if (halts.test(error)) {
                        refused();
                    } else {
                        failed();
                        LOG.debugf("%s not handled in this run: %s", id.apply(candidate), error.toString());
                    }
                })
                .onFailure().recoverWithNull()
                .replaceWithVoid();
    }

    /** True from the moment the run is halted; each candidate not started because of it is counted as not examined. */
    private synchronized boolean haltNow() {
        if (stopped || halted.getAsBoolean()) {
            stopped = true;
            skipped++;
        }
        return stopped;
    }

    private synchronized boolean isStopped() {
        return stopped;
    }

    private synchronized void count(R result) {
        results.merge(result, 1, Integer::sum);
    }

    private synchronized void failed() {
        unreachable++;
    }

    private synchronized void refused() {
        stopped = true;
        skipped++;
    }
}
