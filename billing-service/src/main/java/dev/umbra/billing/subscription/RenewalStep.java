package dev.umbra.billing.subscription;

import java.util.UUID;

/** What the renewals job does with one subscription at a given instant. */
public sealed interface RenewalStep {

    /** Nothing is due (period running, next dunning try later, suspended, pending or canceled). */
    record NotDue() implements RenewalStep {
    }

    /** Canceled at period end and the period is over: close it, charge nothing. */
    record Expire() implements RenewalStep {
    }

    /**
     * Charge {@code amount} for {@code period}; {@code attempt} is 1 for the first try of that period.
     * The outcome goes to {@link Subscription#renewalSucceeded} or {@link Subscription#renewalFailed}.
     */
    record Charge(UUID subscriptionId, int period, int attempt, String planCode, long amount, String idempotencyKey)
            implements RenewalStep {
    }
}
