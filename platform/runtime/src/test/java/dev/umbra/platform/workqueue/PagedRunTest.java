package dev.umbra.platform.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PagedRunTest {

    enum Result { SETTLED }

    private final List<UUID> rows = IntStream.range(0, 10).mapToObj(i -> UUID.randomUUID()).toList();
    private final List<UUID> handled = new CopyOnWriteArrayList<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger mostAtOnce = new AtomicInteger();
    private final AtomicInteger pagesRead = new AtomicInteger();

    @Test
    void everyCandidateOfEveryPageIsHandledOnceAtMostConcurrencyAtOnce() {
        PagedRun.Summary<Result> run = PagedRun.over(Result.class, 3, () -> false, error -> false, this::firstPageOfTheOthers, id -> id, this::settle)
                .await().atMost(Duration.ofSeconds(10));

        assertThat(handled).containsExactlyInAnyOrderElementsOf(rows);
        assertThat(mostAtOnce.get()).isEqualTo(3);
        assertThat(run).isEqualTo(new PagedRun.Summary<>(10, java.util.Map.of(Result.SETTLED, 10), 0, false));
    }

    @Test
    void aCandidateThatFailsIsCountedUnreachableAndTheRunCarriesOn() {
        UUID failing = rows.get(2);
        PagedRun.Summary<Result> run = PagedRun.over(Result.class, 2, () -> false, error -> false, this::firstPageOfTheOthers, id -> id,
                id -> id.equals(failing) ? Uni.createFrom().failure(new IllegalStateException("the far side did not answer")) : settle(id))
                .await().atMost(Duration.ofSeconds(10));

        assertThat(handled).hasSize(9).doesNotContain(failing);
        assertThat(run.unreachable()).isOne();
        assertThat(run.count(Result.SETTLED)).isEqualTo(9);
        assertThat(run.halted()).isFalse();
    }

    @Test
    void onceHaltedNoFurtherCandidateIsStartedAndTheRunSaysSo() {
        PagedRun.Summary<Result> run = PagedRun.over(Result.class, 1, () -> handled.size() >= 5, error -> false, this::firstPageOfTheOthers, id -> id, this::settle)
                .await().atMost(Duration.ofSeconds(10));

        assertThat(handled).hasSize(5);
        assertThat(run.halted()).isTrue();
        assertThat(run.examined()).isEqualTo(5);
        assertThat(pagesRead.get()).as("no page read after the halt").isEqualTo(2);
    }

    @Test
    void aCandidateRefusedTheWayThatHaltsEndsTheRunWithoutCountingIt() {
        UUID refused = rows.get(1);
        PagedRun.Summary<Result> run = PagedRun.over(Result.class, 1, () -> false, error -> error instanceof IllegalCallerException,
                        this::firstPageOfTheOthers, id -> id,
                        id -> id.equals(refused) ? Uni.createFrom().failure(new IllegalCallerException("the circuit lets only trial calls through")) : settle(id))
                .await().atMost(Duration.ofSeconds(10));

        assertThat(handled).containsExactly(rows.get(0));
        assertThat(run.halted()).isTrue();
        assertThat(run.unreachable()).isZero();
        assertThat(run.examined()).isOne();
    }

    /** Pages of four: the first four rows not tried yet. */
    private Uni<List<UUID>> firstPageOfTheOthers(Set<UUID> tried) {
        pagesRead.incrementAndGet();
        return Uni.createFrom().item(rows.stream().filter(id -> !tried.contains(id)).limit(4).toList());
    }

    private Uni<Result> settle(UUID id) {
        mostAtOnce.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        return Uni.createFrom().item(Result.SETTLED).onItem().delayIt().by(Duration.ofMillis(20)).invoke(() -> {
            inFlight.decrementAndGet();
            handled.add(id);
        });
    }
}
