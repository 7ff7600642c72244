package dev.umbra.billing.gateway;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.faulttolerance.api.CircuitBreakerState;
import io.smallrye.faulttolerance.api.TypedGuard;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.util.TypeLiteral;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.logging.Logger;

/**
 * The two guarded clients of the payment gateway: {@code pg-payment} (charges, cancellations,
 * billing keys) and {@code pg-query} (look-ups). Retried: only what surely did not reach the gateway.
 * Counted by the circuit breaker: every gateway fault, never an answer (a 4xx is the gateway working).
 */
@ApplicationScoped
public class GatewayGuards {

    public static final String PAYMENT = "pg-payment";
    public static final String QUERY = "pg-query";

    private static final Logger LOG = Logger.getLogger(GatewayGuards.class);

    @Produces
    @ApplicationScoped
    @Identifier(PAYMENT)
    GatewayGuard payment(PaymentGatewaySettings settings, MeterRegistry registry) {
        return guard(PAYMENT, settings.payment(), registry);
    }

    @Produces
    @ApplicationScoped
    @Identifier(QUERY)
    GatewayGuard query(PaymentGatewaySettings settings, MeterRegistry registry) {
        return guard(QUERY, settings.query(), registry);
    }

    private static GatewayGuard guard(String name, PaymentGatewaySettings.Client client, MeterRegistry registry) {
        PaymentGatewaySettings.Retry retry = client.retry();
        PaymentGatewaySettings.Circuit circuit = client.circuit();
        AtomicReference<CircuitBreakerState> state = new AtomicReference<>(CircuitBreakerState.CLOSED);
        TypedGuard<Uni<Object>> retried = TypedGuard.create(new TypeLiteral<Uni<Object>>() {
                })
                .withDescription(name + ".retry")
                .withRetry()
                    .maxRetries(retry.maxRetries())
                    .delay(retry.initialDelay().toMillis(), ChronoUnit.MILLIS)
                    .jitter(retry.jitter().toMillis(), ChronoUnit.MILLIS)
                    .whenException(GatewayGuards::surelyNotArrived)
                    .beforeRetry(error -> LOG.warnf("[%s retry] sending again, the request surely did not arrive: %s", name, error.getMessage()))
                    .withExponentialBackoff()
                        .factor(2)
                        .maxDelay(retry.maxDelay().toMillis(), ChronoUnit.MILLIS)
                        .done()
                    .done()
                .build();
        TypedGuard<Uni<Object>> breaker = TypedGuard.create(new TypeLiteral<Uni<Object>>() {
                })
                .withDescription(name)
                .withCircuitBreaker()
                    .name(name)
                    .requestVolumeThreshold(circuit.window())
                    .failureRatio(circuit.failureRatio())
                    .delay(circuit.delay().toMillis(), ChronoUnit.MILLIS)
                    .successThreshold(circuit.halfOpenCalls())
                    .when(error -> error instanceof GatewayFault)
                    .onStateChange(next -> changed(name, state.getAndSet(next), next))
                    .done()
                .build();
        SlowCalls slowCalls = new SlowCalls(client.slowCallThreshold(), circuit.window());
        registry.gauge("umbra.payment_gateway.slow_call_rate", Tags.of("name", name), slowCalls, SlowCalls::rate);
        return new GatewayGuard(name, breaker, retried, slowCalls, state::get);
    }

    /**
     * An opening is the news an operator acts on; a trial call letting it close again is good news, and logs at INFO, so
     * that a circuit opened by one fault and closed by the next calls is one WARN, not three.
     */
    private static void changed(String name, CircuitBreakerState previous, CircuitBreakerState next) {
        if (next == CircuitBreakerState.OPEN) {
            LOG.warnf("[%s circuit breaker] %s -> %s: gateway calls are refused until a trial call succeeds", name, previous, next);
        } else {
            LOG.infof("[%s circuit breaker] %s -> %s", name, previous, next);
        }
    }

    private static boolean surelyNotArrived(Throwable error) {
        return error instanceof GatewayFault fault && fault.surelyNotArrived();
    }
}
