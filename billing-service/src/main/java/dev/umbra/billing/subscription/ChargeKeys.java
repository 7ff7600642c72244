package dev.umbra.billing.subscription;

import java.util.UUID;

/**
 * Idempotency keys of charges, one per attempt and derived only from what the attempt is: two replicas
 * (or a retry after a crash, or the guard retrying a call that surely never arrived) that send the same
 * attempt send the same key, and the gateway charges once. A new attempt (a dunning retry, an upgrade
 * tried again) has a key of its own: gateways keep the first answer to a key, a decline included, and
 * give it back for every later request with that key. Defence in depth behind the unique index that
 * allows one attempt in flight per (subscription, period, purpose).
 */
public final class ChargeKeys {

    private ChargeKeys() {
    }

    /** Attempt {@code attempt} (from 1) of the charge for period {@code period} (0: the first charge; n: the n-th renewal). */
    public static String periodCharge(UUID subscriptionId, int period, int attempt) {
        return "sub-" + subscriptionId + "-p" + period + "-a" + attempt;
    }

    /** Attempt {@code attempt} (from 1) of the prorated charge of an upgrade to {@code planCode} during period {@code period}. */
    public static String upgradeCharge(UUID subscriptionId, int period, String planCode, int attempt) {
        return "sub-" + subscriptionId + "-p" + period + "-up-" + planCode + "-a" + attempt;
    }
}
