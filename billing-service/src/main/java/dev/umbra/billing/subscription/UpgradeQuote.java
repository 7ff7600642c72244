package dev.umbra.billing.subscription;

import java.util.UUID;

/**
 * What an upgrade will charge now: the prorated {@code amount} for {@code period}. The plan changes
 * only when this charge succeeds ({@link Subscription#upgradeCharged}).
 */
public record UpgradeQuote(UUID subscriptionId, String fromPlan, String toPlan, int period, long amount, String idempotencyKey) {
}
