package dev.umbra.recovery.discord;

import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.faulttolerance.api.CircuitBreakerState;
import io.smallrye.faulttolerance.api.TypedGuard;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.util.TypeLiteral;
import java.time.temporal.ChronoUnit;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * CircuitBreaker(Retry(call)) around every Discord call. SmallRye applies its strategies in a fixed
 * order (retry outside the circuit breaker) whatever the builder says, so the two are separate guards
 * nested by hand: the retry sends again only what surely did not arrive, and the breaker counts the
 * call's final result. A 4xx answer is Discord working and never counts.
 */
@ApplicationScoped
public class DiscordGuard {

    static final String CIRCUIT = "recovery-discord";

    private static final Logger LOG = Logger.getLogger(DiscordGuard.class);

    private final TypedGuard<Uni<Object>> retry;
    private final TypedGuard<Uni<Object>> breaker;
    private final CircuitBreakerMaintenance circuits;

    DiscordGuard(DiscordSettings settings, CircuitBreakerMaintenance circuits) {
        this.circuits = circuits;
        DiscordSettings.Retry retrySettings = settings.client().retry();
        DiscordSettings.Circuit circuit = settings.client().circuit();
        this.retry = TypedGuard.create(new TypeLiteral<Uni<Object>>() {
                })
                .withDescription(CIRCUIT + ".retry")
                .withRetry()
                    .maxRetries(retrySettings.maxRetries())
                    .delay(retrySettings.initialDelay().toMillis(), ChronoUnit.MILLIS)
                    .whenException(error -> error instanceof DiscordFault fault && fault.surelyNotArrived())
                    .beforeRetry(error -> LOG.debugf("sending a Discord call again, it surely did not arrive: %s", error.getMessage()))
                    .withExponentialBackoff()
                        .factor(2)
                        .maxDelay(retrySettings.maxDelay().toMillis(), ChronoUnit.MILLIS)
                        .done()
                    .done()
                .build();
        this.breaker = TypedGuard.create(new TypeLiteral<Uni<Object>>() {
                })
                .withDescription(CIRCUIT)
                .withCircuitBreaker()
                    .name(CIRCUIT)
                    .requestVolumeThreshold(circuit.window())
                    .failureRatio(circuit.failureRatio())
                    .delay(circuit.delay().toMillis(), ChronoUnit.MILLIS)
                    .successThreshold(1)
                    .when(error -> error instanceof DiscordFault)
                    .onStateChange(state -> LOG.infof("Discord circuit breaker: %s", state))
                    .done()
                .build();
    }

    /** True while the circuit refuses calls. Before the first call the circuit does not exist yet: Discord is presumed up. */
    public boolean open() {
        try {
            return circuits.currentState(CIRCUIT) == CircuitBreakerState.OPEN;
        } catch (IllegalArgumentException notCalledYet) {
            return false;
        }
    }

    @SuppressWarnings("unchecked")
    <T> Uni<T> call(Supplier<Uni<T>> call) {
        Supplier<Uni<Object>> retried = () -> retry.get(() -> (Uni<Object>) call.get());
        return Uni.createFrom().deferred(() -> breaker.get(retried).map(result -> (T) result));
    }
}
