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
 * @param subscriptionEvent        where the latest subscription event applied stands; of the subscription
 *                                 {@code subscriptionId} (set together with it), against which another subscription's events are ordered
 * @param planEvent                where the latest event of the subscription that set its paid plan stands (started,
 *                                 upgraded, downgraded at once; a pending downgrade the sweeper applied), to ignore older ones
 * @param pendingPlanEvent         the same for its pending downgrade (started, upgraded, downgraded)
 * @param suspensionEvent          where the latest event of the subscription that set billing's suspension stands (started,
 *                                 suspended, resumed), to ignore older ones of those
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
        StreamMark subscriptionEvent,
        StreamMark planEvent,
        StreamMark pendingPlanEvent,
        StreamMark suspensionEvent) {

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
                botKickedAt, subscriptionSuspendedAt, subscriptionSuspensionReason, deletedAt, guildEvent, subscriptionEvent, planEvent,
                pendingPlanEvent, suspensionEvent);
    }

    LicenseState withGuildStream(Instant botKickedAt, Instant deletedAt, StreamMark guildEvent) {
        return new LicenseState(licenseId, guildId, paidPlan, subscriptionId, expiresAt, expired, pendingPlan, pendingPlanAt,
                botKickedAt, subscriptionSuspendedAt, subscriptionSuspensionReason, deletedAt, guildEvent, subscriptionEvent, planEvent,
                pendingPlanEvent, suspensionEvent);
    }

    LicenseState withSubscriptionSuspension(Instant suspendedAt, String reason) {
        return new LicenseState(licenseId, guildId, paidPlan, subscriptionId, expiresAt, expired, pendingPlan, pendingPlanAt,
                botKickedAt, suspendedAt, reason, deletedAt, guildEvent, subscriptionEvent, planEvent, pendingPlanEvent, suspensionEvent);
    }

    /** A subscription starts: every mark of the subscription stream begins at its first event. */
    LicenseState withSubscriptionStartedAt(StreamMark at) {
        return new LicenseState(licenseId, guildId, paidPlan, subscriptionId, expiresAt, expired, pendingPlan, pendingPlanAt,
                botKickedAt, subscriptionSuspendedAt, subscriptionSuspensionReason, deletedAt, guildEvent, at, at, at, at);
    }

    /** An event of the subscription applied: the latest one stays the subscription's mark, whatever the order they came in. */
    LicenseState withSubscriptionEvent(StreamMark at) {
        return new LicenseState(licenseId, guildId, paidPlan, subscriptionId, expiresAt, expired, pendingPlan, pendingPlanAt,
                botKickedAt, subscriptionSuspendedAt, subscriptionSuspensionReason, deletedAt, guildEvent, later(subscriptionEvent, at),
                planEvent, pendingPlanEvent, suspensionEvent);
    }

    /** Where the paid plan's and the pending downgrade's latest writers stand now. */
    LicenseState withPlanMarks(StreamMark paid, StreamMark pending) {
        return new LicenseState(licenseId, guildId, paidPlan, subscriptionId, expiresAt, expired, pendingPlan, pendingPlanAt,
                botKickedAt, subscriptionSuspendedAt, subscriptionSuspensionReason, deletedAt, guildEvent, subscriptionEvent,
                paid, pending, suspensionEvent);
    }

    LicenseState withSuspensionEvent(StreamMark at) {
        return new LicenseState(licenseId, guildId, paidPlan, subscriptionId, expiresAt, expired, pendingPlan, pendingPlanAt,
                botKickedAt, subscriptionSuspendedAt, subscriptionSuspensionReason, deletedAt, guildEvent, later(subscriptionEvent, at),
                planEvent, pendingPlanEvent, at);
    }

    static StreamMark later(StreamMark latest, StreamMark at) {
        if (at == null) {
            return latest;
        }
        return latest != null && at.before(latest) ? latest : at;
    }
}
