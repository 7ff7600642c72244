package dev.umbra.billing.subscription;

import static dev.umbra.billing.subscription.SubscriptionStatus.ACTIVE;
import static dev.umbra.billing.subscription.SubscriptionStatus.CANCELED;
import static dev.umbra.billing.subscription.SubscriptionStatus.PAST_DUE;
import static dev.umbra.billing.subscription.SubscriptionStatus.PENDING;
import static dev.umbra.billing.subscription.SubscriptionStatus.SUSPENDED;

import dev.umbra.billing.plan.Plan;
import dev.umbra.billing.plan.PlanCatalogue;
import dev.umbra.events.StreamMark;
import dev.umbra.events.billing.PaymentFailed;
import dev.umbra.events.billing.PaymentFailedFinal;
import dev.umbra.events.billing.PaymentSucceeded;
import dev.umbra.events.billing.PlanDowngraded;
import dev.umbra.events.billing.PlanUpgraded;
import dev.umbra.events.billing.SubscriptionCanceled;
import dev.umbra.events.billing.SubscriptionResumed;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.billing.SubscriptionSuspended;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * A guild's subscription and every rule that changes it. Immutable: each rule returns a
 * {@link Transition} with the new value and the events it raises. Every rule is idempotent: applied to
 * its own result it returns the subscription unchanged and raises nothing, so a redelivered event or a
 * repeated request is harmless. Time is always passed in.
 *
 * @param cycle         the monthly periods; null until the first charge succeeded
 * @param paidThrough   the number of the last paid period; -1 before the first charge
 * @param duePeriod     the period the next renewal pays for (normally {@code paidThrough + 1})
 * @param pendingPlanCode a downgrade that takes effect with the next paid period
 * @param failedAttempts failed charges of {@code duePeriod} so far
 * @param nextAttemptAt  when dunning tries {@code duePeriod} again; null unless a charge failed
 * @param suspensions    why it is suspended; empty unless SUSPENDED, or PENDING with what will suspend it the moment its
 *                       first charge succeeds
 * @param botKicked     where the kick its BOT_KICKED suspension stands for stands in the guild's stream (null without
 *                       one): the bot's return is a BotInstalled that came after it, not a late or redriven one from before
 */
public record Subscription(
        UUID id,
        String guildId,
        UUID userId,
        UUID billingKeyId,
        String planCode,
        SubscriptionStatus status,
        BillingCycle cycle,
        int paidThrough,
        int duePeriod,
        boolean cancelAtPeriodEnd,
        String pendingPlanCode,
        int failedAttempts,
        Instant nextAttemptAt,
        Set<SuspensionReason> suspensions,
        StreamMark botKicked,
        Instant canceledAt) {

    public Subscription {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(guildId, "guildId");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(billingKeyId, "billingKeyId");
        Objects.requireNonNull(planCode, "planCode");
        Objects.requireNonNull(status, "status");
        suspensions = suspensions.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(suspensions));
    }

    /** A new subscription waiting for its first charge. Only a paid plan can be subscribed to. */
    public static Subscription open(UUID id, String guildId, UUID userId, UUID billingKeyId, Plan plan) {
        if (!plan.isPaid()) {
            throw new PlanChangeRejectedException(plan.code() + " is free: there is nothing to subscribe to");
        }
        return new Subscription(id, guildId, userId, billingKeyId, plan.code(), PENDING, null, -1, 0, false, null, 0, null,
                Set.of(), null, null);
    }

    public Plan plan() {
        return PlanCatalogue.of(planCode);
    }

    /** The plan the next period is charged for: the pending downgrade if there is one. */
    public Plan planForNextPeriod() {
        return PlanCatalogue.of(pendingPlanCode != null ? pendingPlanCode : planCode);
    }

    public boolean started() {
        return cycle != null;
    }

    /** The last paid period; null before the first charge succeeded. */
    public Period paidPeriod() {
        return started() ? cycle.period(paidThrough) : null;
    }

    // --- first charge ---------------------------------------------------------------------------

    /** The charge that starts the subscription: period 0 at the plan's price. */
    public RenewalStep.Charge firstCharge() {
        TransitionTable.require(Trigger.FIRST_CHARGE_SUCCEEDED, status, "only a pending subscription has a first charge");
        long price = plan().monthlyPrice();
        return new RenewalStep.Charge(id, 0, 1, planCode, price, ChargeKeys.periodCharge(id, 0, 1));
    }

    /**
     * The first charge succeeded: period 0 starts now. A reason to suspend that arrived while the charge was
     * pending (the bot kicked, the billing key deleted) takes effect at once: it starts SUSPENDED, announced.
     */
    public Transition firstChargeSucceeded(Instant at) {
        if (started()) {
            return Transition.none(this);
        }
        TransitionTable.require(Trigger.FIRST_CHARGE_SUCCEEDED, status,
                "the subscription ended before its first charge succeeded; the charge must be refunded");
        BillingCycle startedCycle = new BillingCycle(at);
        SubscriptionStarted started = new SubscriptionStarted(id, guildId, planCode, startedCycle.period(0).end());
        Draft draft = new Draft(this).cycle(startedCycle).paidThrough(0).duePeriod(1);
        if (suspensions.isEmpty()) {
            return Transition.of(this, Trigger.FIRST_CHARGE_SUCCEEDED, draft.status(ACTIVE).build(), started);
        }
        SuspensionReason first = EnumSet.copyOf(suspensions).iterator().next();
        return Transition.of(this, Trigger.FIRST_CHARGE_SUCCEEDED, draft.status(SUSPENDED).build(), started,
                new SubscriptionSuspended(id, first.name()));
    }

    /**
     * The first charge failed, or surely never reached the gateway: the subscription is CANCELED, not
     * deleted, because its payment attempt references it and keeps the record of what was tried. No
     * event: nothing outside billing ever heard of it (SubscriptionStarted was never raised).
     */
    public Transition firstChargeFailed(Instant at) {
        if (status == CANCELED && !started()) {
            return Transition.none(this);
        }
        TransitionTable.require(Trigger.FIRST_CHARGE_FAILED, status, "the first charge has already succeeded");
        return Transition.of(this, Trigger.FIRST_CHARGE_FAILED, new Draft(this).canceled(at).build());
    }

    // --- renewals and dunning -------------------------------------------------------------------

    /** What the renewals job must do with this subscription at {@code at}. */
    public RenewalStep renewalStep(Instant at) {
        if (!started() || status == CANCELED) {
            return new RenewalStep.NotDue();
        }
        boolean paidPeriodOver = !at.isBefore(paidPeriod().end());
        if (cancelAtPeriodEnd) {
            return paidPeriodOver ? new RenewalStep.Expire() : new RenewalStep.NotDue();
        }
        boolean due = switch (status) {
            case ACTIVE -> !at.isBefore(cycle.period(duePeriod).start());
            case PAST_DUE -> !at.isBefore(nextAttemptAt);
            default -> false;
        };
        if (!due) {
            return new RenewalStep.NotDue();
        }
        Plan plan = planForNextPeriod();
        int attempt = failedAttempts + 1;
        return new RenewalStep.Charge(id, duePeriod, attempt, plan.code(), plan.monthlyPrice(), ChargeKeys.periodCharge(id, duePeriod, attempt));
    }

    /**
     * The earliest instant at which {@link #renewalStep} stops answering NotDue, or null while only an
     * outside cause can change that (pending, suspended without an end, canceled). Stored with the
     * subscription so the renewal scan reads an index instead of every subscription.
     */
    public Instant renewalDueAt() {
        if (!started() || status == CANCELED) {
            return null;
        }
        if (cancelAtPeriodEnd) {
            return paidPeriod().end();
        }
        return switch (status) {
            case ACTIVE -> cycle.period(duePeriod).start();
            case PAST_DUE -> nextAttemptAt;
            default -> null;
        };
    }

    /** A renewal paid {@code period}: it becomes the current one, a pending downgrade takes effect. */
    public Transition renewalSucceeded(int period, UUID attemptId, Instant at) {
        if (started() && period <= paidThrough) {
            return Transition.none(this);
        }
        TransitionTable.require(Trigger.RENEWAL_SUCCEEDED, status,
                status == CANCELED ? "the subscription ended while the charge was in flight; the charge must be refunded"
                        : "a subscription that never started has no renewal");
        if (period != duePeriod) {
            throw new IllegalTransitionException(status, Trigger.RENEWAL_SUCCEEDED,
                    "period " + period + " was paid but period " + duePeriod + " is due");
        }
        Subscription after = new Draft(this)
                .status(status == SUSPENDED ? SUSPENDED : ACTIVE)
                .planCode(planForNextPeriod().code()).pendingPlanCode(null)
                .paidThrough(period).duePeriod(period + 1)
                .failedAttempts(0).nextAttemptAt(null)
                .build();
        return Transition.of(this, Trigger.RENEWAL_SUCCEEDED, after,
                new PaymentSucceeded(id, attemptId, cycle.period(period).end()));
    }

    /**
     * Attempt {@code attempt} at paying {@code period} failed. Below {@code maxFailures}: PAST_DUE and the
     * next try one interval later; at it: CANCELED.
     */
    public Transition renewalFailed(int period, int attempt, UUID attemptId, Instant at, DunningSettings dunning) {
        if (status == CANCELED || (started() && (period <= paidThrough || period == duePeriod && attempt <= failedAttempts))) {
            return Transition.none(this);
        }
        TransitionTable.require(Trigger.RENEWAL_FAILED, status, "a subscription that never started has no renewal");
        if (period != duePeriod || attempt != failedAttempts + 1) {
            throw new IllegalTransitionException(status, Trigger.RENEWAL_FAILED, "attempt " + attempt + " of period " + period
                    + " failed but attempt " + (failedAttempts + 1) + " of period " + duePeriod + " is the next");
        }
        if (attempt >= dunning.maxFailures()) {
            Subscription after = new Draft(this).failedAttempts(attempt).canceled(at).build();
            return Transition.of(this, Trigger.RENEWAL_FAILED, after, new PaymentFailedFinal(id));
        }
        Subscription after = new Draft(this)
                .status(status == SUSPENDED ? SUSPENDED : PAST_DUE)
                .failedAttempts(attempt).nextAttemptAt(at.plus(dunning.retryInterval()))
                .build();
        return Transition.of(this, Trigger.RENEWAL_FAILED, after, new PaymentFailed(id, attemptId, attempt));
    }

    /**
     * Canceled at period end and the period is over: it ends now, and says so (SubscriptionCanceled, not at
     * period end this time), so that the license ends now rather than after the grace kept for late
     * renewals, and any suspension of the subscription ends with it.
     */
    public Transition periodEnded(Instant at) {
        if (status == CANCELED) {
            return Transition.none(this);
        }
        TransitionTable.require(Trigger.PERIOD_ENDED, status, "only a running subscription has a period to end");
        if (!cancelAtPeriodEnd || at.isBefore(paidPeriod().end())) {
            throw new IllegalTransitionException(status, Trigger.PERIOD_ENDED,
                    "it ends only when canceled at period end and the period is over");
        }
        return Transition.of(this, Trigger.PERIOD_ENDED, new Draft(this).canceled(at).build(), new SubscriptionCanceled(id, false));
    }

    // --- cancel ---------------------------------------------------------------------------------

    /** The user cancels now: the license ends now. */
    public Transition cancelNow(Instant at) {
        return cancelAt(Trigger.CANCEL_NOW, at);
    }

    /** The guild is gone: whatever it paid for ends now. */
    public Transition guildDeleted(Instant at) {
        return cancelAt(Trigger.GUILD_DELETED, at);
    }

    private Transition cancelAt(Trigger trigger, Instant at) {
        if (status == CANCELED) {
            return Transition.none(this);
        }
        Subscription after = new Draft(this).canceled(at).build();
        // A pending subscription was never announced: canceling it says nothing to anyone.
        return status == PENDING ? Transition.of(this, trigger, after)
                : Transition.of(this, trigger, after, new SubscriptionCanceled(id, false));
    }

    /** The user cancels at the end of the paid period: no renewal, no refund, the license runs until then. */
    public Transition cancelAtPeriodEnd(Instant at) {
        if (status == CANCELED || cancelAtPeriodEnd) {
            return Transition.none(this);
        }
        TransitionTable.require(Trigger.CANCEL_AT_PERIOD_END, status, "only an active subscription has a paid period to run out; cancel now");
        Subscription after = new Draft(this).cancelAtPeriodEnd(true).pendingPlanCode(null).build();
        return Transition.of(this, Trigger.CANCEL_AT_PERIOD_END, after, new SubscriptionCanceled(id, true));
    }

    // --- suspend and resume ---------------------------------------------------------------------

    /**
     * Suspend for {@code reason}: no renewals until every reason is lifted. Announced once, when it
     * stops running; a second reason only adds to the record. A pending subscription records the reason
     * and stays pending, unannounced: its first charge decides, and starts it suspended if the reason still
     * holds then. A canceled one stays canceled, so suspend and cancel converge in any order.
     */
    public Transition suspend(SuspensionReason reason, StreamMark cause) {
        if (status == CANCELED || suspensions.contains(reason)) {
            return Transition.none(this);
        }
        TransitionTable.require(Trigger.SUSPEND, status, "not a running subscription");
        Set<SuspensionReason> reasons = EnumSet.of(reason);
        reasons.addAll(suspensions);
        Draft draft = new Draft(this).suspensions(reasons);
        if (status != PENDING) {
            draft.status(SUSPENDED);
        }
        if (reason == SuspensionReason.BOT_KICKED) {
            draft.botKicked(cause);
        }
        Subscription after = draft.build();
        return status == SUSPENDED || status == PENDING ? Transition.of(this, Trigger.SUSPEND, after)
                : Transition.of(this, Trigger.SUSPEND, after, new SubscriptionSuspended(id, reason.name()));
    }

    /**
     * {@code reason} is gone (the bot is back, or a new billing key pays: {@code newBillingKeyId}). When it
     * was the last reason the subscription runs again, announced: PAST_DUE if dunning was under way, else
     * ACTIVE. Periods that ended entirely while suspended are not charged: the next renewal pays for the
     * period that contains {@code at}, and it is due at once.
     */
    public Transition resume(SuspensionReason reason, UUID newBillingKeyId, Instant at) {
        if (status == PENDING && suspensions.contains(reason) && reason == SuspensionReason.BOT_KICKED) {
            // the bot came back before the first charge settled: nothing to announce, nothing left to suspend for
            Set<SuspensionReason> left = EnumSet.copyOf(suspensions);
            left.remove(reason);
            return Transition.of(this, Trigger.RESUME, new Draft(this).suspensions(left).botKicked(null).build());
        }
        if (status != SUSPENDED || !suspensions.contains(reason)) {
            return Transition.none(this);
        }
        if (reason == SuspensionReason.BILLING_KEY_DELETED && newBillingKeyId == null) {
            throw new PlanChangeRejectedException("a subscription suspended for its deleted billing key resumes only with a new one");
        }
        Draft draft = new Draft(this);
        if (newBillingKeyId != null) {
            draft.billingKeyId(newBillingKeyId);
        }
        Set<SuspensionReason> left = EnumSet.copyOf(suspensions);
        left.remove(reason);
        if (reason == SuspensionReason.BOT_KICKED) {
            draft.botKicked(null);
        }
        if (!left.isEmpty()) {
            return Transition.of(this, Trigger.RESUME, draft.suspensions(left).build());
        }
        if (cancelAtPeriodEnd && !at.isBefore(paidPeriod().end())) {
            // it was to end with its paid period, which ended while it was suspended: it ends instead of running again
            return Transition.of(this, Trigger.RESUME, new Draft(this).canceled(at).build(), new SubscriptionCanceled(id, false));
        }
        draft.suspensions(Set.of());
        if (!at.isBefore(cycle.period(duePeriod).end())) {
            draft.duePeriod(cycle.periodAt(at).number()).failedAttempts(0).nextAttemptAt(null).status(ACTIVE);
        } else {
            draft.status(failedAttempts > 0 ? PAST_DUE : ACTIVE);
        }
        return Transition.of(this, Trigger.RESUME, draft.build(), new SubscriptionResumed(id, reason.name()));
    }

    /**
     * The bot is back in the guild (a BotInstalled at {@code install} in the guild's stream): the BOT_KICKED
     * suspension is lifted, unless the install came before the kick it stands for (a late or redriven
     * record). The guild's stream orders them by its sequence where both carry one, by time otherwise.
     */
    public Transition botBack(StreamMark install) {
        if (botKicked != null && install.before(botKicked)) {
            return Transition.none(this);
        }
        return resume(SuspensionReason.BOT_KICKED, null, install.at());
    }

    /**
     * The user's billing key {@code billingKeyId} pays from now on. For a subscription suspended because
     * its key was deleted this is how it resumes; a running one simply changes card. A pending
     * subscription's first charge decides, and a canceled one has nothing left to pay.
     */
    public Transition payWith(UUID billingKeyId, Instant at) {
        Objects.requireNonNull(billingKeyId, "billingKeyId");
        if (billingKeyId.equals(this.billingKeyId) && !suspensions.contains(SuspensionReason.BILLING_KEY_DELETED)) {
            return Transition.none(this);
        }
        TransitionTable.require(Trigger.PAY_WITH, status, "only a running subscription changes the card it is paid with");
        if (suspensions.contains(SuspensionReason.BILLING_KEY_DELETED)) {
            return resume(SuspensionReason.BILLING_KEY_DELETED, billingKeyId, at);
        }
        return Transition.of(this, Trigger.PAY_WITH, new Draft(this).billingKeyId(billingKeyId).build());
    }

    // --- plan changes ---------------------------------------------------------------------------

    /**
     * What upgrading to {@code to} now costs, as the first attempt of that upgrade in the paid period
     * ({@link UpgradeQuote#attempt} for a later one); the plan changes when that charge succeeds.
     */
    public UpgradeQuote quoteUpgrade(Plan to, Instant at) {
        TransitionTable.require(Trigger.UPGRADE_CHARGED, status, "not a running subscription");
        if (status != ACTIVE) {
            throw new IllegalTransitionException(status, Trigger.UPGRADE_CHARGED, "only an active subscription can be upgraded");
        }
        if (cancelAtPeriodEnd) {
            throw new IllegalTransitionException(status, Trigger.UPGRADE_CHARGED, "it is canceled at period end");
        }
        Period period = paidPeriod();
        if (!period.contains(at)) {
            throw new IllegalTransitionException(status, Trigger.UPGRADE_CHARGED, "the paid period is over; the renewal comes first");
        }
        long amount = Proration.upgradeAmount(plan(), to, period, at);
        return new UpgradeQuote(id, planCode, to.code(), period.number(), amount, ChargeKeys.upgradeCharge(id, period.number(), to.code(), 1));
    }

    /** The prorated charge of {@code quote} succeeded: the new plan applies at once. */
    public Transition upgradeCharged(UpgradeQuote quote, Instant at) {
        if (planCode.equals(quote.toPlan())) {
            return Transition.none(this);
        }
        TransitionTable.require(Trigger.UPGRADE_CHARGED, status,
                "the subscription ended while the upgrade charge was in flight; the charge must be refunded");
        if (!planCode.equals(quote.fromPlan()) || quote.period() != paidThrough) {
            throw new IllegalTransitionException(status, Trigger.UPGRADE_CHARGED,
                    "the quote was for " + quote.fromPlan() + " in period " + quote.period() + "; the charge must be refunded");
        }
        Subscription after = new Draft(this).planCode(quote.toPlan()).pendingPlanCode(null).build();
        return Transition.of(this, Trigger.UPGRADE_CHARGED, after, new PlanUpgraded(id, quote.fromPlan(), quote.toPlan()));
    }

    /** Downgrade to {@code to} from the next period on; the current one is paid and keeps its plan. */
    public Transition downgrade(Plan to, Instant at) {
        if (to.code().equals(pendingPlanCode)) {
            return Transition.none(this);
        }
        TransitionTable.require(Trigger.DOWNGRADE, status, "only an active subscription can be downgraded");
        if (cancelAtPeriodEnd) {
            throw new IllegalTransitionException(status, Trigger.DOWNGRADE, "it is canceled at period end");
        }
        if (!plan().isAbove(to)) {
            throw new PlanChangeRejectedException(to.code() + " is not below " + planCode);
        }
        if (!to.isPaid()) {
            throw new PlanChangeRejectedException("to go to " + to.code() + ", cancel at period end");
        }
        Instant effectiveAt = cycle.period(duePeriod).start();
        Subscription after = new Draft(this).pendingPlanCode(to.code()).build();
        return Transition.of(this, Trigger.DOWNGRADE, after, new PlanDowngraded(id, planCode, to.code(), effectiveAt));
    }

    /** A mutable copy, so each rule names only what it changes. */
    private static final class Draft {
        private final Subscription from;
        private UUID billingKeyId;
        private String planCode;
        private SubscriptionStatus status;
        private BillingCycle cycle;
        private int paidThrough;
        private int duePeriod;
        private boolean cancelAtPeriodEnd;
        private String pendingPlanCode;
        private int failedAttempts;
        private Instant nextAttemptAt;
        private Set<SuspensionReason> suspensions;
        private StreamMark botKicked;
        private Instant canceledAt;

        Draft(Subscription s) {
            from = s;
            billingKeyId = s.billingKeyId;
            planCode = s.planCode;
            status = s.status;
            cycle = s.cycle;
            paidThrough = s.paidThrough;
            duePeriod = s.duePeriod;
            cancelAtPeriodEnd = s.cancelAtPeriodEnd;
            pendingPlanCode = s.pendingPlanCode;
            failedAttempts = s.failedAttempts;
            nextAttemptAt = s.nextAttemptAt;
            suspensions = s.suspensions;
            botKicked = s.botKicked;
            canceledAt = s.canceledAt;
        }

        Draft billingKeyId(UUID value) { billingKeyId = value; return this; }
        Draft planCode(String value) { planCode = value; return this; }
        Draft status(SubscriptionStatus value) { status = value; return this; }
        Draft cycle(BillingCycle value) { cycle = value; return this; }
        Draft paidThrough(int value) { paidThrough = value; return this; }
        Draft duePeriod(int value) { duePeriod = value; return this; }
        Draft cancelAtPeriodEnd(boolean value) { cancelAtPeriodEnd = value; return this; }
        Draft pendingPlanCode(String value) { pendingPlanCode = value; return this; }
        Draft failedAttempts(int value) { failedAttempts = value; return this; }
        Draft nextAttemptAt(Instant value) { nextAttemptAt = value; return this; }
        Draft suspensions(Set<SuspensionReason> value) { suspensions = value; return this; }
        Draft botKicked(StreamMark value) { botKicked = value; return this; }

        /** Final: nothing is retried and nothing is suspended any more. */
        Draft canceled(Instant at) {
            status = CANCELED;
            canceledAt = at;
            nextAttemptAt = null;
            suspensions = Set.of();
            botKicked = null;
            return this;
        }

        Subscription build() {
            return new Subscription(from.id, from.guildId, from.userId, billingKeyId, planCode, status, cycle, paidThrough,
                    duePeriod, cancelAtPeriodEnd, pendingPlanCode, failedAttempts, nextAttemptAt, suspensions, botKicked, canceledAt);
        }
    }
}
