package dev.umbra.billing.payment;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.time.Duration;

/** {@code billing.reconciliation.*}; the work queue's own settings are {@code umbra.work-queue.payment-reconciliation.*}. */
@ConfigMapping(prefix = "billing.reconciliation")
public interface ReconciliationSettings {

    /** From the start of one run to the next. */
    @WithDefault("PT1M")
    Duration interval();

    /**
     * A payment younger than this is left alone: its charge call may still be under way, and "the
     * gateway has nothing for this order" would wrongly fail it. Longer than the worst charge call
     * (at most about 11 s with retries: PaymentGatewaySettings.longestCall) plus the time to store its answer.
     */
    @WithDefault("PT30S")
    Duration settleAfter();

    /** A payment the gateway still reports pending this long after its attempt is failed. */
    @WithDefault("PT5M")
    Duration pendingWindow();

    /**
     * How long a payment failed without the gateway's word (never found, pending too long) is still
     * looked up in case the gateway takes the money after all ({@link StrayCharges}); also how long a
     * refund failed as "never arrived" is looked up in case the gateway executes its cancel after all
     * ({@code dev.umbra.billing.invoice.LateRefunds}).
     */
    @WithDefault("P7D")
    Duration strayWatch();

    /** The longest wait between two looks at a watched stray charge or late refund (they start at {@link #interval()} and double). */
    @WithDefault("PT6H")
    Duration strayLookMax();

    /**
     * Look-ups of one run at once: each mostly waits on the gateway, one after the other made a thousand
     * uncertain payments a matter of minutes (./bench money).
     */
    @WithDefault("8")
    @Min(1)
    int concurrency();

    /** Payments read per page (always the first page of those not yet tried in the run). */
    @WithDefault("20")
    @Min(1)
    int pageSize();
}
