package dev.umbra.billing.subscription;

import java.util.UUID;

/**
 * What an upgrade will charge now: the prorated {@code amount} for {@code period}. The plan changes
 * only when this charge succeeds ({@link Subscription#upgradeCharged}).
 */
public record UpgradeQuote(UUID subscriptionId, String fromPlan, String toPlan, int period, long amount, String idempotencyKey) {

    /** The same charge as attempt {@code attempt} (from 1): the earlier ones failed, and a new attempt has a key of its own. */
    public UpgradeQuote attempt(int attempt) {
        return new UpgradeQuote(subscriptionId, fromPlan, toPlan, period, amount, ChargeKeys.upgradeCharge(subscriptionId, period, toPlan, attempt));
    }
}
