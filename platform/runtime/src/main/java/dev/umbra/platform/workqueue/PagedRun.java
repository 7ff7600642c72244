package dev.umbra.platform.workqueue;

import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * One run of a recurring job over the rows that need it (a reconciliation, a watch): always the first
 * page of candidates minus the ids already tried in this run, so that rows the run settles (which leave
 * the set) never make a page skip one, and a row left as it was is tried once per run. Candidates are
 * handled one after the other; one whose handling fails is counted unreachable and left for the next run.
 *
 * @param <C> a candidate as its page query reads it
 * @param <R> what handling one candidate may come to
 */
public final class PagedRun<C, R extends Enum<R>> {

    /** What a run did: candidates examined, how many came to each result, and how many failed (tried again next run). */
    public record Summary<R extends Enum<R>>(int examined, Map<R, Integer> results, int unreachable) {

        public int count(R result) {
            return results.getOrDefault(result, 0);
        }
    }

    private static final Logger LOG = Logger.getLogger(PagedRun.class);

    private final Function<Set<UUID>, Uni<List<C>>> page;
    private final Function<C, UUID> id;
    private final Function<C, Uni<R>> handle;
    private final Set<UUID> tried = new HashSet<>();
    private final Map<R, Integer> results;
    private int unreachable;

    private PagedRun(Class<R> resultType, Function<Set<UUID>, Uni<List<C>>> page, Function<C, UUID> id, Function<C, Uni<R>> handle) {
        this.page = page;
        this.id = id;
        this.handle = handle;
        this.results = new EnumMap<>(resultType);
    }

    /**
     * Runs {@code handle} over every candidate {@code page} reads (given the ids tried so far, it answers
     * the first page of the others; empty when none is left).
     */
    public static <C, R extends Enum<R>> Uni<Summary<R>> over(Class<R> resultType, Function<Set<UUID>, Uni<List<C>>> page,
            Function<C, UUID> id, Function<C, Uni<R>> handle) {
        PagedRun<C, R> run = new PagedRun<>(resultType, page, id, handle);
        return run.pages().map(done -> new Summary<>(run.tried.size(), Map.copyOf(run.results), run.unreachable));
    }

    private Uni<Void> pages() {
        return page.apply(Set.copyOf(tried)).chain(candidates -> {
            if (candidates.isEmpty()) {
                return Uni.createFrom().voidItem();
            }
            candidates.forEach(candidate -> tried.add(id.apply(candidate)));
            return Multi.createFrom().iterable(candidates)
                    .onItem().transformToUniAndConcatenate(candidate -> Uni.createFrom().deferred(() -> handle.apply(candidate))
                            .invoke(result -> results.merge(result, 1, Integer::sum))
                            .onFailure().invoke(error -> {
                                unreachable++;
                                LOG.debugf("%s not handled in this run: %s", id.apply(candidate), error.toString());
                            })
                            .onFailure().recoverWithNull())
                    .collect().last()
                    .chain(this::pages);
        });
    }
}
