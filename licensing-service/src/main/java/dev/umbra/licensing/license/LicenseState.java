package dev.umbra.licensing.license;

import dev.umbra.events.StreamMark;
import dev.umbra.events.plan.Plan;
import java.time.Instant;
import java.util.UUID;

/**
 * Everything licensing knows about one guild's license, in plain Java.
 *
 * <p>Events of the guild topic and of the subscription topic arrive in no order relative to each
 * other, so each field is written by ONE of the two streams only, and what a person sees (plan,
 * status, reason) is derived from them. Whatever the interleaving, the same events leave the same
 * fields and so the same license.
 *
 * @param paidPlan                 the subscription's plan; null without a live subscription (subscription stream)
 * @param expired                  the paid period ran out (the sweeper)
 * @param botKickedAt              the bot was kicked and not installed again since (guild stream)
 * @param subscriptionSuspendedAt  billing suspended the subscription (subscription stream)
 * @param deletedAt                the guild was deleted: the license is canceled for good (guild stream)
 * @param guildEvent               where the latest guild event applied stands in the guild's stream, to ignore older ones
 * @param subscriptionEvent        where the latest subscription event applied stands, to ignore older ones; of the
 *                                 subscription {@code subscriptionId} (set together with it)
 */
public record LicenseState(
        UUID licenseId,
        String guildId,
        Plan paidPlan,
        UUID subscriptionId,
        Instant expiresAt,
        boolean expired,
        Plan pendingPlan,
        Instant pendingPlanAt,
        Instant botKickedAt,
        Instant subscriptionSuspendedAt,
        String subscriptionSuspensionReason,
        Instant deletedAt,
        StreamMark guildEvent,
        StreamMark subscriptionEvent) {

    public static final String BOT_KICKED = "BOT_KICKED";

    public Plan plan() {
        return paidPlan != null && !expired ? paidPlan : Plan.FREE;
    }

    public LicenseStatus status() {
        if (deletedAt != null) {
            return LicenseStatus.CANCELED;
        }
        return botKickedAt != null || subscriptionSuspendedAt != null ? LicenseStatus.SUSPENDED : LicenseStatus.ACTIVE;
    }

    /** The reason of the earliest suspension still in force, so that the order of arrival does not matter. */
    public String suspensionReason() {
        if (status() != LicenseStatus.SUSPENDED) {
            return null;
        }
        if (subscriptionSuspendedAt == null) {
            return BOT_KICKED;
        }
        if (botKickedAt == null) {
            return subscriptionSuspensionReason;
        }
        return botKickedAt.isAfter(subscriptionSuspendedAt) ? subscriptionSuspensionReason : BOT_KICKED;
    }

    /** The expiry that matters to a person: none on the free plan. */
    public Instant effectiveExpiresAt() {
        return plan() == Plan.FREE ? null : expiresAt;
    }

    LicenseState withPaid(Plan paidPlan, UUID subscriptionId, Instant expiresAt, boolean expired, Plan pendingPlan,
            Instant pendingPlanAt) {
        return new LicenseState(licenseId, guildId, paidPlan, subscriptionId, expiresAt, expired, pendingPlan, pendingPlanAt,
                botKickedAt, subscriptionSuspendedAt, subscriptionSuspensionReason, deletedAt, guildEvent, subscriptionEvent);
    }

    LicenseState withGuildStream(Instant botKickedAt, Instant deletedAt, StreamMark guildEvent) {
        return new LicenseState(licenseId, guildId, paidPlan, subscriptionId, expiresAt, expired, pendingPlan, pendingPlanAt,
                botKickedAt, subscriptionSuspendedAt, subscriptionSuspensionReason, deletedAt, guildEvent, subscriptionEvent);
    }

    LicenseState withSubscriptionSuspension(Instant suspendedAt, String reason) {
        return new LicenseState(licenseId, guildId, paidPlan, subscriptionId, expiresAt, expired, pendingPlan, pendingPlanAt,
                botKickedAt, suspendedAt, reason, deletedAt, guildEvent, subscriptionEvent);
    }

    LicenseState withSubscriptionEvent(StreamMark at) {
        return new LicenseState(licenseId, guildId, paidPlan, subscriptionId, expiresAt, expired, pendingPlan, pendingPlanAt,
                botKickedAt, subscriptionSuspendedAt, subscriptionSuspensionReason, deletedAt, guildEvent, at);
    }
}
