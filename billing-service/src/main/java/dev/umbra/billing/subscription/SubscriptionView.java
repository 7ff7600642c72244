package dev.umbra.billing.subscription;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** A subscription as answered; {@code periodStart}/{@code periodEnd} are the paid period's, null before the first charge. */
public record SubscriptionView(UUID id, String guildId, UUID userId, UUID billingKeyId, String planCode, String status,
        Instant periodStart, Instant periodEnd, boolean cancelAtPeriodEnd, String pendingPlanCode, int failedAttempts,
        Instant nextAttemptAt, List<String> suspensions, Instant canceledAt) {

    public static SubscriptionView of(Subscription s) {
        Period paid = s.paidPeriod();
        return new SubscriptionView(s.id(), s.guildId(), s.userId(), s.billingKeyId(), s.planCode(), s.status().name(),
                paid == null ? null : paid.start(), paid == null ? null : paid.end(), s.cancelAtPeriodEnd(), s.pendingPlanCode(),
                s.failedAttempts(), s.nextAttemptAt(), s.suspensions().stream().map(Enum::name).sorted().toList(), s.canceledAt());
    }
}
