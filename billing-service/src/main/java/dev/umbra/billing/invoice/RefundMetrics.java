package dev.umbra.billing.invoice;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Locale;

/**
 * {@code umbra_billing_refunds_total{trigger, outcome}}: refunds as they end, counted once their
 * transaction has committed. trigger: {@code operator} (the refunds API) or {@code automatic} (a charge
 * its subscription could not use); outcome: {@code succeeded}, {@code failed} (nothing given back), and
 * for an operator's refund also {@code not_sent} (rolled back) or {@code uncertain} (left IN_PROGRESS
 * for reconciliation, which counts it again when it settles it). An automatic refund without a usable
 * answer stays SCHEDULED and is not counted until it ends.
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

    RefundMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (Trigger trigger : Trigger.values()) {
            for (Outcome outcome : Outcome.values()) {
                counter(trigger, outcome);
            }
        }
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
