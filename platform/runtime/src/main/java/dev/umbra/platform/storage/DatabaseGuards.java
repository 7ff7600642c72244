package dev.umbra.platform.storage;

import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.faulttolerance.api.CircuitBreakerState;
import io.smallrye.faulttolerance.api.TypedGuard;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.util.TypeLiteral;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.jboss.logging.Logger;

/**
 * The "database" policy: Retry(CircuitBreaker(Timeout(call))). Only a call that surely did not run is
 * retried (an error after COMMIT was sent leaves the outcome unknown, and is answered, not repeated);
 * only a database that cannot be reached counts against the circuit ({@link StorageFaults#databaseAway}),
 * never a busy one, a lost race, a 404 or a conflict.
 */
@ApplicationScoped
public class DatabaseGuards {

    public static final String DATABASE = "database";

    private static final Logger LOG = Logger.getLogger(DatabaseGuards.class);

    private final AtomicReference<CircuitBreakerState> state = new AtomicReference<>(CircuitBreakerState.CLOSED);

    @Produces
    @ApplicationScoped
    @Identifier(DATABASE)
    TypedGuard<Uni<Object>> database(DatabaseSettings settings, MeterRegistry registry) {
        registry.gauge("umbra.database.circuit.open", state, s -> s.get() == CircuitBreakerState.CLOSED ? 0 : 1);
        return TypedGuard.create(new TypeLiteral<Uni<Object>>() {
                })
                .withDescription(DATABASE)
                .withRetry()
                    .maxRetries(settings.retry().maxRetries())
                    .delay(settings.retry().delay().toMillis(), ChronoUnit.MILLIS)
                    .jitter(settings.retry().jitter().toMillis(), ChronoUnit.MILLIS)
                    .whenException(error -> !(error instanceof CircuitBreakerOpenException)
                            && StorageFaults.surelyNotExecuted(error))
                    .done()
                .withCircuitBreaker()
                    .name(DATABASE)
                    .requestVolumeThreshold(settings.circuit().requestVolumeThreshold())
                    .failureRatio(settings.circuit().failureRatio())
                    .delay(settings.circuit().delay().toMillis(), ChronoUnit.MILLIS)
                    .successThreshold(settings.circuit().successThreshold())
                    .when(StorageFaults::databaseAway)
                    .onStateChange(this::changed)
                    .done()
                .withTimeout()
                    .duration(settings.callTimeout().toMillis(), ChronoUnit.MILLIS)
                    .done()
                .build();
    }

    private void changed(CircuitBreakerState next) {
        CircuitBreakerState previous = state.getAndSet(next);
        if (next == CircuitBreakerState.OPEN && previous == CircuitBreakerState.CLOSED) {
            LOG.warn("database circuit opened: requests answer 503 until the database is back");
        } else if (next == CircuitBreakerState.OPEN && previous == CircuitBreakerState.HALF_OPEN) {
            // a trial call failed: the same outage goes on, already reported
            LOG.debug("database circuit opened again: the database is still away");
        } else if (next == CircuitBreakerState.CLOSED && previous != CircuitBreakerState.CLOSED) {
            LOG.info("database circuit closed: the database is back");
        }
    }
}
