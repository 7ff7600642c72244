package dev.umbra.platform.workqueue;

import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The work of {@link WorkQueueDrainIT}'s queue: each try takes a moment, so tries of one round overlap; keys starting with
 * "refused" fail, "raced" ones lose an optimistic lock's race, "slow" ones take {@link #SLOW}.
 */
@ApplicationScoped
public class CountingWork implements WorkHandler {

    static final String QUEUE = "drain-probe";
    /** A try of a key starting with "slow": longer than half the queue's lease (4 s in the test configuration). */
    static final Duration SLOW = Duration.ofMillis(2_500);

    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger mostAtOnce = new AtomicInteger();
    private final List<String> tried = new CopyOnWriteArrayList<>();

    @Override
    public String queue() {
        return QUEUE;
    }

    @Override
    public Uni<Outcome> handle(WorkItem item) {
        mostAtOnce.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        Duration takes = item.key().startsWith("slow") ? SLOW : Duration.ofMillis(50);
        return Uni.createFrom().item(item.key()).onItem().delayIt().by(takes).map(key -> {
            inFlight.decrementAndGet();
            tried.add(key);
            if (key.startsWith("raced")) {
                throw new jakarta.persistence.OptimisticLockException("another transaction changed the row meanwhile");
            }
            return key.startsWith("refused") ? Outcome.failed("the far side refused it") : Outcome.done();
        });
    }

    List<String> tried() {
        return List.copyOf(tried);
    }

    int mostAtOnce() {
        return mostAtOnce.get();
    }

    void forget() {
        tried.clear();
        mostAtOnce.set(0);
    }
}
