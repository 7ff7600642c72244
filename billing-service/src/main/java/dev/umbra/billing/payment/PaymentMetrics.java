package dev.umbra.billing.payment;

import dev.umbra.billing.gateway.ChargeOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The payment settlement's meters (names as Prometheus shows them in the service README):
 * settlements by outcome and source, skipped reports by reason, the age of the oldest payment still
 * IN_PROGRESS, webhook duplicates and reconciliation runs.
 */
@ApplicationScoped
public class PaymentMetrics {

    private final MeterRegistry registry;
    private final Clock clock;
    private final Counter unmatchedCharges;
    /** attempted_at of the oldest IN_PROGRESS payment as last read; null when there is none. */
    private final AtomicReference<Instant> oldestInProgress = new AtomicReference<>();

    PaymentMetrics(MeterRegistry registry, Clock clock) {
        this.registry = registry;
        this.clock = clock;
        this.unmatchedCharges = Counter.builder("umbra.billing.charges.unmatched")
                .description("Charges the gateway reports DONE for an order no payment of billing's has: money taken with no record here")
                .register(registry);
        Gauge.builder("umbra.billing.payments.oldest.in.progress", this, PaymentMetrics::oldestInProgressSeconds)
                .description("How long the oldest payment still IN_PROGRESS has waited for its result (0: none); read by every reconciliation run")
                .baseUnit("seconds").register(registry);
        // from zero: an alert's increase() over a series born with its first settlement would miss that one
        for (PaymentSettlement.Result result : PaymentSettlement.Result.values()) {
            for (PaymentSettlement.Source source : PaymentSettlement.Source.values()) {
                if (result.changedPayment()) {
                    settledCounter(result, source);
                }
            }
        }
    }

    void unmatchedCharge() {
        unmatchedCharges.increment();
    }

    void settled(PaymentSettlement.Result result, PaymentSettlement.Source source) {
        if (result.changedPayment()) {
            settledCounter(result, source).increment();
        } else {
            Counter.builder("umbra.billing.payment.reports.skipped")
                    .description("Gateway reports that changed no payment, by reason (already settled, lost the optimistic race, still pending…)")
                    .tags("reason", tag(result), "source", tag(source)).register(registry).increment();
        }
    }

    /**
     * {@code umbra_billing_payment_attempts_total{outcome}}: what the gateway's answer to each charge
     * proves: succeeded, declined, pending (settled later by the callback or reconciliation),
     * rejected (the request was refused), not_sent (surely never reached the gateway) or uncertain.
     */
    public void chargeAttempt(ChargeOutcome outcome) {
        String tag;
        if (outcome instanceof ChargeOutcome.Accepted accepted) {
            tag = switch (accepted.status()) {
                case "DONE" -> "succeeded";
                case "ABORTED", "CANCELED" -> "declined";
                default -> "pending";
            };
        } else if (outcome instanceof ChargeOutcome.Rejected) {
            tag = "rejected";
        } else if (outcome instanceof ChargeOutcome.SurelyNotArrived) {
            tag = "not_sent";
        } else {
            tag = "uncertain";
        }
        Counter.builder("umbra.billing.payment.attempts").description("Charges sent to the payment gateway, by what its answer proves")
                .tag("outcome", tag).register(registry).increment();
    }

    private Counter settledCounter(PaymentSettlement.Result result, PaymentSettlement.Source source) {
        return Counter.builder("umbra.billing.payments.settled").description("Payments settled, by outcome and by who settled them")
                .tags("outcome", tag(result), "source", tag(source)).register(registry);
    }

    /** A callback whose provider event id was already recorded. */
    public void webhookDuplicate(String provider) {
        Counter.builder("umbra.billing.webhook.duplicates").description("Callbacks delivered again for an event already recorded")
                .tag("provider", provider).register(registry).increment();
    }

    void reconciliationRun(boolean completed) {
        Counter.builder("umbra.billing.reconciliation.runs").description("Runs of the payment reconciliation job")
                .tag("result", completed ? "completed" : "failed").register(registry).increment();
    }

    void oldestInProgress(Instant attemptedAt) {
        oldestInProgress.set(attemptedAt);
    }

    private double oldestInProgressSeconds() {
        Instant oldest = oldestInProgress.get();
        return oldest == null ? 0 : Math.max(0, Duration.between(oldest, clock.instant()).toMillis() / 1000.0);
    }

    private static String tag(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }
}
