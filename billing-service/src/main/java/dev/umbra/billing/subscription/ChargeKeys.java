package dev.umbra.billing.subscription;

import java.util.UUID;

/**
 * Idempotency keys of charges, derived only from what is charged for: two replicas (or a retry after a
 * crash) that charge the same thing send the same key and the gateway charges once. Defence in depth
 * behind the unique (subscription, period) constraint of the payment table.
 */
public final class ChargeKeys {

    private ChargeKeys() {
    }

    /** The charge for period {@code period} (0: the first charge; n: the n-th renewal). */
    public static String periodCharge(UUID subscriptionId, int period) {
        return "sub-" + subscriptionId + "-p" + period;
    }

    /** The prorated charge of an upgrade to {@code planCode} during period {@code period}. */
    public static String upgradeCharge(UUID subscriptionId, int period, String planCode) {
        return "sub-" + subscriptionId + "-p" + period + "-up-" + planCode;
    }
}
