package dev.umbra.billing.gateway;

import io.smallrye.faulttolerance.api.CircuitBreakerState;
import io.smallrye.faulttolerance.api.TypedGuard;
import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * CircuitBreaker(Retry(call)): the retry absorbs transient refusals first, and the circuit breaker
 * records only the final result of the call after its retries. SmallRye applies its strategies in a
 * fixed order (retry outside the circuit breaker) whatever the order of the builder calls or
 * annotations, so the two are separate guards nested here by hand.
 */
public final class GatewayGuard {

    private final String name;
    private final TypedGuard<Uni<Object>> circuitBreaker;
    private final TypedGuard<Uni<Object>> retry;
    private final SlowCalls slowCalls;
    private final Supplier<CircuitBreakerState> state;

    GatewayGuard(String name, TypedGuard<Uni<Object>> circuitBreaker, TypedGuard<Uni<Object>> retry, SlowCalls slowCalls,
            Supplier<CircuitBreakerState> state) {
        this.name = name;
        this.circuitBreaker = circuitBreaker;
        this.retry = retry;
        this.slowCalls = slowCalls;
        this.state = state;
    }

    /** True while the circuit refuses calls (a job may then skip a round rather than have every call refused). */
    public boolean circuitOpen() {
        return state.get() == CircuitBreakerState.OPEN;
    }

    /** False while open or half-open (letting only its trial calls through). */
    public boolean circuitClosed() {
        return state.get() == CircuitBreakerState.CLOSED;
    }

    public String name() {
        return name;
    }

    /** Runs {@code call} (a fresh request on each subscription) through the guard. */
    @SuppressWarnings("unchecked")
    public <T> Uni<T> call(Supplier<Uni<T>> call) {
        Supplier<Uni<Object>> retried = () -> retry.get(() -> (Uni<Object>) call.get());
        return Uni.createFrom().deferred(() -> {
            long started = System.nanoTime();
            return circuitBreaker.get(retried)
                    .onTermination().invoke(() -> slowCalls.record(Duration.ofNanos(System.nanoTime() - started)))
                    .map(result -> (T) result);
        });
    }
}
