package dev.umbra.licensing.license;

import dev.umbra.events.StreamMark;
import dev.umbra.events.plan.Plan;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.UUID;

/**
 * How each event changes a license. Plain functions of (state, event, time): {@code null} stands for
 * "no license yet". Applying an event twice gives the same state as applying it once.
 */
public final class LicenseRules {

    private LicenseRules() {
    }

    // --- guild stream -------------------------------------------------------------------------

    /** A first install grants FREE; a reinstall after a kick lifts the kick. */
    public static LicenseState botInstalled(LicenseState license, String guildId, StreamMark at) {
        if (license == null) {
            return new LicenseState(UUID.randomUUID(), guildId, null, null, null, false, null, null,
                    null, null, null, null, at, null, null, null, null);
        }
        if (staleForGuild(license, at)) {
            return license;
        }
        return license.withGuildStream(null, license.deletedAt(), at);
    }

    public static LicenseState botKicked(LicenseState license, StreamMark at) {
        if (license == null || staleForGuild(license, at)) {
            return license;
        }
        Instant kickedAt = license.botKickedAt() != null ? license.botKickedAt() : at.at();
        return license.withGuildStream(kickedAt, license.deletedAt(), at);
    }

    public static LicenseState guildDeleted(LicenseState license, String guildId, StreamMark at) {
        if (license == null) {
            // a guild deleted before licensing heard of it (kicked while its install was unseen, then deleted): kept as a
            // tombstone, so that a subscription event arriving after it finds the guild gone, as it would have in the other order
            return new LicenseState(UUID.randomUUID(), guildId, null, null, null, false, null, null, null, null, null, at.at(), at, null,
                    null, null, null);
        }
        if (license.deletedAt() != null) {
            return license;
        }
        // a deletion applies however late it comes, but leaves the stream's mark where it was if that is later
        StreamMark latest = license.guildEvent() != null && at.before(license.guildEvent()) ? license.guildEvent() : at;
        return license.withGuildStream(license.botKickedAt(), at.at(), latest);
    }

    // --- subscription stream ------------------------------------------------------------------

    /**
     * A subscription's first payment: its plan until {@code periodEnd}. Creates the license if the guild's install is still on its way.
     * Applied once per subscription: the same event again (read after the dedupe horizon, or an offset reset) must not undo
     * what the sweeper did since, which leaves no mark of its own.
     */
    public static LicenseState subscriptionStarted(LicenseState license, String guildId, UUID subscriptionId, Plan plan,
            Instant periodEnd, StreamMark at) {
        LicenseState base = license != null ? license
                : new LicenseState(UUID.randomUUID(), guildId, null, null, null, false, null, null, null, null, null, null, null, null,
                        null, null, null);
        if (license != null && (subscriptionId.equals(license.subscriptionId()) || staleForSubscription(license, subscriptionId, at))) {
            return license;
        }
        return base.withPaid(plan, subscriptionId, periodEnd, false, null, null)
                .withSubscriptionSuspension(null, null)
                .withSubscriptionStartedAt(at);
    }

    /** The paid period moves to the later of the old and the new end; never backwards, so in whatever order they come. */
    public static LicenseState paymentSucceeded(LicenseState license, UUID subscriptionId, Instant newPeriodEnd, StreamMark at) {
        if (!follows(license, subscriptionId, at, Fields.PERIOD_OR_END)) {
            return license;
        }
        boolean extended = license.expiresAt() == null || newPeriodEnd.isAfter(license.expiresAt());
        if (!extended) {
            return license.withSubscriptionEvent(at);
        }
        return license.withPaid(license.paidPlan(), subscriptionId, newPeriodEnd, false, license.pendingPlan(), license.pendingPlanAt())
                .withSubscriptionEvent(at);
    }

    /** Dunning gave up: back to FREE. */
    public static LicenseState paymentFailedFinal(LicenseState license, UUID subscriptionId, StreamMark at) {
        if (!follows(license, subscriptionId, at, Fields.PERIOD_OR_END)) {
            return license;
        }
        return ended(license, subscriptionId, at);
    }

    /**
     * The user canceled the subscription. Now: the license ends now, back to FREE. At the end of the
     * period: nothing changes before it, the paid plan runs to its expiry.
     */
    public static LicenseState subscriptionCanceled(LicenseState license, UUID subscriptionId, boolean atPeriodEnd, StreamMark at) {
        if (!follows(license, subscriptionId, at, Fields.PERIOD_OR_END)) {
            return license;
        }
        return atPeriodEnd ? license.withSubscriptionEvent(at) : ended(license, subscriptionId, at);
    }

    /** The subscription is over: FREE at once, and billing's suspension of it goes with it (a kicked bot still suspends the license on its own). */
    private static LicenseState ended(LicenseState license, UUID subscriptionId, StreamMark at) {
        return license.withPaid(null, subscriptionId, null, false, null, null).withSubscriptionSuspension(null, null).withSubscriptionEvent(at);
    }

    /** Billing suspended the subscription (the bot was kicked, the billing key deleted…); a second suspension changes nothing. */
    public static LicenseState subscriptionSuspended(LicenseState license, UUID subscriptionId, String reason, StreamMark at) {
        if (!follows(license, subscriptionId, at, Fields.SUSPENSION)) {
            return license;
        }
        if (license.subscriptionSuspendedAt() != null) {
            return license.withSuspensionEvent(at);
        }
        return license.withSubscriptionSuspension(at.at(), reason).withSuspensionEvent(at);
    }

    /** Billing runs the subscription again: its suspension is lifted (a kicked bot still suspends the license on its own). */
    public static LicenseState subscriptionResumed(LicenseState license, UUID subscriptionId, StreamMark at) {
        if (!follows(license, subscriptionId, at, Fields.SUSPENSION)) {
            return license;
        }
        return license.withSubscriptionSuspension(null, null).withSuspensionEvent(at);
    }

    /** The paid plan is {@code newPlan} now, and a pending downgrade is off. */
    public static LicenseState planUpgraded(LicenseState license, UUID subscriptionId, Plan newPlan, StreamMark at) {
        if (!follows(license, subscriptionId, at, Fields.PLAN)) {
            return license;
        }
        return planNow(license, subscriptionId, newPlan, at);
    }

    /**
     * The paid plan becomes {@code plan} and no downgrade is pending, each unless a later event of the subscription set it
     * (an event redriven late: a downgrade for the next period that came after it still stands).
     */
    private static LicenseState planNow(LicenseState license, UUID subscriptionId, Plan plan, StreamMark at) {
        boolean paidSetSince = license.planEvent() != null && at.before(license.planEvent());
        boolean pendingSetSince = license.pendingPlanEvent() != null && at.before(license.pendingPlanEvent());
        return license.withPaid(paidSetSince ? license.paidPlan() : plan, subscriptionId, license.expiresAt(), license.expired(),
                        pendingSetSince ? license.pendingPlan() : null, pendingSetSince ? license.pendingPlanAt() : null)
                .withPlanMarks(paidSetSince ? license.planEvent() : at, pendingSetSince ? license.pendingPlanEvent() : at)
                .withSubscriptionEvent(at);
    }

    /** A downgrade takes effect at {@code effectiveAt}: now if that has passed, else the sweeper applies it then. */
    public static LicenseState planDowngraded(LicenseState license, UUID subscriptionId, Plan newPlan, Instant effectiveAt,
            StreamMark at, Instant now) {
        if (!follows(license, subscriptionId, at, downgradeFields(effectiveAt, now))) {
            return license;
        }
        if (!effectiveAt.isAfter(now)) {
            return planNow(license, subscriptionId, newPlan, at);
        }
        return license.withPaid(license.paidPlan(), subscriptionId, license.expiresAt(), license.expired(), newPlan, effectiveAt)
                .withPlanMarks(license.planEvent(), at)
                .withSubscriptionEvent(at);
    }

    /** What a downgrade writes: the pending plan when it takes effect later, else the paid plan now (as an upgrade does). */
    public static Fields downgradeFields(Instant effectiveAt, Instant now) {
        return effectiveAt.isAfter(now) ? Fields.PENDING_PLAN : Fields.PLAN;
    }

    // --- time ---------------------------------------------------------------------------------

    /** Applies a downgrade that has come due, and ends a paid period that ran out more than {@code grace} ago. */
    public static LicenseState sweep(LicenseState license, Instant now, Duration grace) {
        LicenseState swept = license;
        if (swept.pendingPlanAt() != null && !swept.pendingPlanAt().isAfter(now)) {
            // the paid plan is now the downgrade's: an older plan event redriven later does not undo it
            swept = swept.withPaid(swept.pendingPlan(), swept.subscriptionId(), swept.expiresAt(), swept.expired(), null, null)
                    .withPlanMarks(LicenseState.later(swept.planEvent(), swept.pendingPlanEvent()), swept.pendingPlanEvent());
        }
        if (swept.paidPlan() != null && !swept.expired() && swept.expiresAt() != null && swept.expiresAt().plus(grace).isBefore(now)) {
            swept = swept.withPaid(swept.paidPlan(), swept.subscriptionId(), swept.expiresAt(), true, swept.pendingPlan(), swept.pendingPlanAt());
        }
        return swept;
    }

    /**
     * The first instant at which {@link #sweep} would change the license, or null if it never will
     * without another event: a pending downgrade's time, or just past the paid period plus the grace.
     */
    public static Instant nextSweepAt(LicenseState license, Duration grace) {
        Instant next = license.pendingPlanAt();
        if (license.paidPlan() != null && !license.expired() && license.expiresAt() != null) {
            Instant lapse = license.expiresAt().plus(grace).plusMillis(1);
            next = next == null || lapse.isBefore(next) ? lapse : next;
        }
        return next;
    }

    /**
     * What of a license an event of its subscription writes. Billing writes a subscription's events in order, but one
     * dead-lettered and redriven comes after later ones: it is older only than those that wrote the same fields, and applies
     * over the others. Its paid plan, its pending downgrade and billing's suspension of it are each set by the latest event
     * that set them; the paid period only moves forward, and an end is final, so those apply in any order.
     */
    public enum Fields {
        /** The paid plan now, and with it the pending downgrade (cleared): an upgrade, a downgrade that takes effect at once. */
        PLAN,
        /** A downgrade for later. */
        PENDING_PLAN,
        SUSPENSION,
        PERIOD_OR_END;

        /** The latest event an event of these fields must not be older than; null: none. */
        StreamMark latest(LicenseState license) {
            return switch (this) {
                // older than both: nothing of it would apply
                case PLAN -> license.planEvent() == null || license.pendingPlanEvent() == null ? null
                        : license.planEvent().before(license.pendingPlanEvent()) ? license.planEvent() : license.pendingPlanEvent();
                case PENDING_PLAN -> license.pendingPlanEvent();
                case SUSPENSION -> license.suspensionEvent();
                case PERIOD_OR_END -> null;
            };
        }
    }

    /** An event of the license's own subscription, still running, and not older than the latest one that wrote the same fields. */
    private static boolean follows(LicenseState license, UUID subscriptionId, StreamMark at, Fields fields) {
        return license != null && subscriptionId.equals(license.subscriptionId()) && olderInSubscriptionStream(license, subscriptionId, at, fields) == null;
    }

    /** An event of the guild's stream older than the latest one applied: a redriven dead letter, say. */
    static boolean staleForGuild(LicenseState license, StreamMark at) {
        return license.guildEvent() != null && at.before(license.guildEvent());
    }

    /** Why an event of the guild's stream changes nothing ({@link #staleForGuild}), or null. */
    static String olderInGuildStream(LicenseState license, StreamMark at) {
        return staleForGuild(license, at) ? "older than the guild's latest event applied (" + describe(license.guildEvent()) + ")" : null;
    }

    /** Why a subscription's start changes nothing ({@link #staleForSubscription(LicenseState, UUID, StreamMark)}), or null. */
    static String olderStart(LicenseState license, UUID subscriptionId, StreamMark at) {
        return staleForSubscription(license, subscriptionId, at)
                ? "older than the latest event applied of the license's subscription " + license.subscriptionId() + " (" + describe(license.subscriptionEvent()) + ")"
                : null;
    }

    /**
     * A subscription's start older than what the license applied of its subscriptions: the same start again, or one of an earlier
     * subscription than the license's, by billing's commit time (see {@link StreamMark#earlierThan}).
     */
    static boolean staleForSubscription(LicenseState license, UUID subscriptionId, StreamMark at) {
        StreamMark latest = license.subscriptionEvent();
        if (latest == null) {
            return false;
        }
        return subscriptionId.equals(license.subscriptionId()) ? at.before(latest) : at.earlierThan(latest);
    }

    /**
     * An event of {@code subscriptionId} that writes {@code fields} and is older than what the license applied: of another
     * subscription, older than the license's one; of the license's own, older than the latest event that wrote the same fields
     * (by sequence within the subscription).
     */
    static boolean staleForSubscription(LicenseState license, UUID subscriptionId, StreamMark at, Fields fields) {
        return olderInSubscriptionStream(license, subscriptionId, at, fields) != null;
    }

    /** Why an event of {@code subscriptionId} that writes {@code fields} changes nothing, or null: stale, or its subscription ended. */
    static String olderInSubscriptionStream(LicenseState license, UUID subscriptionId, StreamMark at, Fields fields) {
        if (!subscriptionId.equals(license.subscriptionId())) {
            return olderStart(license, subscriptionId, at);
        }
        if (license.paidPlan() == null) {
            return "its subscription ended (" + describe(license.subscriptionEvent()) + ")";
        }
        StreamMark latest = fields.latest(license);
        return latest != null && at.before(latest)
                ? "older than the latest event of its subscription that set its " + fields.name().toLowerCase(Locale.ROOT).replace('_', ' ') + " (" + describe(latest) + ")"
                : null;
    }

    private static String describe(StreamMark mark) {
        return "sequence " + mark.sequence() + ", occurred " + mark.at();
    }
}
