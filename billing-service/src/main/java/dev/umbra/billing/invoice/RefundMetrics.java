package dev.umbra.billing.invoice;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code umbra_billing_refunds_total{trigger, outcome}}: refunds as they end, counted once their
 * transaction has committed. trigger: {@code operator} (the refunds API) or {@code automatic} (a charge
 * its subscription could not use); outcome: {@code succeeded}, {@code failed} (nothing given back), and
 * for an operator's refund also {@code not_sent} (rolled back) or {@code uncertain} (left IN_PROGRESS
 * for reconciliation, which counts it again when it settles it). An automatic refund without a usable
 * answer stays SCHEDULED and is not counted until it ends; {@code umbra_billing_refunds_oldest_scheduled_seconds}
 * says how long the oldest one has waited.
 */
@ApplicationScoped
// at start: the series exist from zero, before the first refund, for the alert's increase()
@Startup
public class RefundMetrics {

    public enum Trigger {
        OPERATOR, AUTOMATIC
    }

    public enum Outcome {
        SUCCEEDED, FAILED, NOT_SENT, UNCERTAIN
    }

    private final MeterRegistry registry;
    private final Clock clock;
    /** created_at of the oldest SCHEDULED refund as the last automatic-refunds run read it; null when there is none. */
    private final AtomicReference<Instant> oldestScheduled = new AtomicReference<>();

    RefundMetrics(MeterRegistry registry, Clock clock) {
        this.registry = registry;
        this.clock = clock;
        Gauge.builder("umbra.billing.refunds.oldest.scheduled", this, RefundMetrics::oldestScheduledSeconds)
                .description("How long the oldest automatic refund has waited to be given back (0: none); read by every automatic-refunds run")
                .baseUnit("seconds").register(registry);
        for (RefundWatchStatus status : RefundWatchStatus.values()) {
            lateRefunds(status);
        }
        for (Trigger trigger : Trigger.values()) {
            for (Outcome outcome : Outcome.values()) {
                counter(trigger, outcome);
            }
        }
    }

    /** {@code umbra_billing_late_refunds_total{status}}: refunds failed without the gateway's word put under watch, then how each watch ended. */
    void watch(RefundWatchStatus status) {
        lateRefunds(status).increment();
    }

    private Counter lateRefunds(RefundWatchStatus status) {
        return Counter.builder("umbra.billing.late.refunds")
                .description("Refunds FAILED without the gateway's word: watched, then recorded (the gateway executed the cancel after all) "
                        + "or nothing arrived before the watch ended")
                .tag("status", status.name().toLowerCase(Locale.ROOT)).register(registry);
    }

    void oldestScheduled(Instant createdAt) {
        oldestScheduled.set(createdAt);
    }

    private double oldestScheduledSeconds() {
        Instant oldest = oldestScheduled.get();
        return oldest == null ? 0 : Math.max(0, Duration.between(oldest, clock.instant()).toSeconds());
    }

    void counted(Trigger trigger, Outcome outcome) {
        counter(trigger, outcome).increment();
    }

    private Counter counter(Trigger trigger, Outcome outcome) {
        return Counter.builder("umbra.billing.refunds")
                .description("Refunds by who asked (an operator, the service for a charge its subscription could not use) and how they ended")
                .tags("trigger", trigger.name().toLowerCase(Locale.ROOT), "outcome", outcome.name().toLowerCase(Locale.ROOT))
                .register(registry);
    }
}
