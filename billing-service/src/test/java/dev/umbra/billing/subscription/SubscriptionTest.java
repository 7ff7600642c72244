package dev.umbra.billing.subscription;

import static dev.umbra.billing.plan.PlanCatalogue.FREE;
import static dev.umbra.billing.plan.PlanCatalogue.PREMIUM;
import static dev.umbra.billing.plan.PlanCatalogue.PRO;
import static dev.umbra.billing.subscription.SubscriptionStatus.ACTIVE;
import static dev.umbra.billing.subscription.SubscriptionStatus.CANCELED;
import static dev.umbra.billing.subscription.SubscriptionStatus.PAST_DUE;
import static dev.umbra.billing.subscription.SubscriptionStatus.PENDING;
import static dev.umbra.billing.subscription.SubscriptionStatus.SUSPENDED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.umbra.events.StreamMark;
import dev.umbra.events.billing.PaymentFailed;
import dev.umbra.events.billing.PaymentSucceeded;
import dev.umbra.events.billing.PlanDowngraded;
import dev.umbra.events.billing.PlanUpgraded;
import dev.umbra.events.billing.SubscriptionCanceled;
import dev.umbra.events.billing.SubscriptionResumed;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.billing.SubscriptionSuspended;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class SubscriptionTest {

    static final UUID ID = UUID.fromString("00000000-0000-0000-0000-00000000005a");
    static final UUID USER = UUID.fromString("00000000-0000-0000-0000-0000000000a1");
    static final UUID KEY = UUID.fromString("00000000-0000-0000-0000-0000000000b1");
    static final UUID ATTEMPT = UUID.fromString("00000000-0000-0000-0000-0000000000c1");
    static final String GUILD = "123456789012345678";
    static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");
    static final Instant PERIOD_END = Instant.parse("2026-12-01T00:00:00Z");
    static final DunningSettings DUNNING = new DunningSettings(Duration.ofHours(24), 4);

    /** Where an event that carried no sequence stands: its time alone orders it. */
    static StreamMark mark(Instant at) {
        return new StreamMark(0, at);
    }

    static Subscription pending() {
        return Subscription.open(ID, GUILD, USER, KEY, PRO);
    }

    static Subscription active() {
        return pending().firstChargeSucceeded(T0).after();
    }

    /** Applies a rule, then again to its result: the second time changes nothing and raises nothing. */
    static Transition twice(Subscription start, Function<Subscription, Transition> rule) {
        Transition first = rule.apply(start);
        Transition second = rule.apply(first.after());
        assertThat(second.changed()).isFalse();
        assertThat(second.after()).isEqualTo(first.after());
        assertThat(second.events()).isEmpty();
        return first;
    }

    @Test
    void opensPendingAndOnlyForAPaidPlan() {
        assertThat(pending().status()).isEqualTo(PENDING);
        assertThat(pending().firstCharge()).isEqualTo(new RenewalStep.Charge(ID, 0, 1, "PRO", 9_900, "sub-" + ID + "-p0-a1"));
        assertThatThrownBy(() -> Subscription.open(ID, GUILD, USER, KEY, FREE)).isInstanceOf(PlanChangeRejectedException.class);
    }

    @Test
    void firstChargeSuccessStartsPeriodZeroAndAnnouncesItsEnd() {
        Transition t = twice(pending(), s -> s.firstChargeSucceeded(T0));
        assertThat(t.after().status()).isEqualTo(ACTIVE);
        assertThat(t.after().paidPeriod()).isEqualTo(new Period(0, T0, PERIOD_END));
        assertThat(t.events()).containsExactly(new SubscriptionStarted(ID, GUILD, "PRO", PERIOD_END));
        assertThatThrownBy(() -> t.after().firstCharge()).isInstanceOf(IllegalTransitionException.class);
    }

    @Test
    void firstChargeFailureCancelsThePendingSubscriptionSilently() {
        Transition t = twice(pending(), s -> s.firstChargeFailed(T0));
        assertThat(t.after().status()).isEqualTo(CANCELED);
        assertThat(t.after().started()).isFalse();
        assertThat(t.events()).isEmpty();
        assertThat(t.after().renewalStep(PERIOD_END.plusSeconds(1))).isEqualTo(new RenewalStep.NotDue());
    }

    @Test
    void contradictingFirstChargeOutcomesAreRejected() {
        assertThatThrownBy(() -> active().firstChargeFailed(T0)).isInstanceOf(IllegalTransitionException.class);
        // the charge succeeded after the pending subscription was given up: the caller refunds it
        Subscription gaveUp = pending().firstChargeFailed(T0).after();
        assertThatThrownBy(() -> gaveUp.firstChargeSucceeded(T0))
                .isInstanceOf(IllegalTransitionException.class)
                .hasMessageContaining("refunded");
    }

    @Test
    void renewalIsDueWhenThePaidPeriodEndsAndPaysTheNextOne() {
        Subscription s = active();
        assertThat(s.renewalStep(PERIOD_END.minusSeconds(1))).isEqualTo(new RenewalStep.NotDue());
        RenewalStep.Charge charge = (RenewalStep.Charge) s.renewalStep(PERIOD_END);
        assertThat(charge).isEqualTo(new RenewalStep.Charge(ID, 1, 1, "PRO", 9_900, "sub-" + ID + "-p1-a1"));

        Transition t = twice(s, x -> x.renewalSucceeded(1, ATTEMPT, PERIOD_END));
        assertThat(t.after().paidPeriod()).isEqualTo(new Period(1, PERIOD_END, Instant.parse("2027-01-01T00:00:00Z")));
        assertThat(t.events()).containsExactly(new PaymentSucceeded(ID, ATTEMPT, Instant.parse("2027-01-01T00:00:00Z")));
        assertThatThrownBy(() -> s.renewalSucceeded(2, ATTEMPT, PERIOD_END)).isInstanceOf(IllegalTransitionException.class);
    }

    @Test
    void aFailedRenewalIsPastDueAndRetriedOneIntervalLater() {
        Transition t = twice(active(), s -> s.renewalFailed(1, 1, ATTEMPT, PERIOD_END, DUNNING));
        assertThat(t.after().status()).isEqualTo(PAST_DUE);
        assertThat(t.events()).containsExactly(new PaymentFailed(ID, ATTEMPT, 1));
        assertThat(t.after().renewalStep(PERIOD_END.plus(Duration.ofHours(24)).minusSeconds(1))).isEqualTo(new RenewalStep.NotDue());
        assertThat(t.after().renewalStep(PERIOD_END.plus(Duration.ofHours(24))))
                .isEqualTo(new RenewalStep.Charge(ID, 1, 2, "PRO", 9_900, "sub-" + ID + "-p1-a2"));
        assertThatThrownBy(() -> t.after().renewalFailed(1, 3, ATTEMPT, PERIOD_END, DUNNING)).isInstanceOf(IllegalTransitionException.class);

        Transition recovered = twice(t.after(), s -> s.renewalSucceeded(1, ATTEMPT, PERIOD_END.plus(Duration.ofHours(24))));
        assertThat(recovered.after().status()).isEqualTo(ACTIVE);
        assertThat(recovered.after().failedAttempts()).isZero();
        assertThat(recovered.after().nextAttemptAt()).isNull();
    }

    @Test
    void cancelNowEndsAtOnceAndAPendingOneSilently() {
        Transition t = twice(active(), s -> s.cancelNow(T0.plusSeconds(60)));
        assertThat(t.after().status()).isEqualTo(CANCELED);
        assertThat(t.events()).containsExactly(new SubscriptionCanceled(ID, false));
        assertThat(twice(pending(), s -> s.cancelNow(T0)).events()).isEmpty();
    }

    @Test
    void cancelAtPeriodEndRunsThePeriodOutThenEndsWithoutACharge() {
        Transition t = twice(active(), s -> s.cancelAtPeriodEnd(T0.plusSeconds(60)));
        assertThat(t.after().status()).isEqualTo(ACTIVE);
        assertThat(t.events()).containsExactly(new SubscriptionCanceled(ID, true));
        assertThat(t.after().renewalStep(PERIOD_END.minusSeconds(1))).isEqualTo(new RenewalStep.NotDue());
        assertThat(t.after().renewalStep(PERIOD_END)).isEqualTo(new RenewalStep.Expire());
        assertThatThrownBy(() -> t.after().periodEnded(PERIOD_END.minusSeconds(1))).isInstanceOf(IllegalTransitionException.class);

        Transition ended = twice(t.after(), s -> s.periodEnded(PERIOD_END));
        assertThat(ended.after().status()).isEqualTo(CANCELED);
        // said again as it happens: the license ends now (no grace for a renewal that will not come)
        assertThat(ended.events()).containsExactly(new SubscriptionCanceled(ID, false));
        // cancel now still ends it early
        assertThat(t.after().cancelNow(T0.plusSeconds(120)).events()).containsExactly(new SubscriptionCanceled(ID, false));
        assertThatThrownBy(() -> active().periodEnded(PERIOD_END)).isInstanceOf(IllegalTransitionException.class);
    }

    @Test
    void onlyAnActiveSubscriptionCanBeCanceledAtPeriodEnd() {
        Subscription pastDue = active().renewalFailed(1, 1, ATTEMPT, PERIOD_END, DUNNING).after();
        assertThatThrownBy(() -> pastDue.cancelAtPeriodEnd(PERIOD_END)).isInstanceOf(IllegalTransitionException.class)
                .hasMessageContaining("cancel now");
        assertThat(pastDue.cancelNow(PERIOD_END).after().status()).isEqualTo(CANCELED);
    }

    @Test
    void guildDeletedCancelsNowFromEveryRunningStatus() {
        Subscription suspended = active().suspend(SuspensionReason.BOT_KICKED, mark(T0)).after();
        for (Subscription s : new Subscription[] {active(), suspended, active().renewalFailed(1, 1, ATTEMPT, PERIOD_END, DUNNING).after()}) {
            Transition t = twice(s, x -> x.guildDeleted(PERIOD_END));
            assertThat(t.after().status()).isEqualTo(CANCELED);
            assertThat(t.events()).containsExactly(new SubscriptionCanceled(ID, false));
        }
    }

    @Test
    void suspendStopsRenewalsAndIsAnnouncedOnce() {
        Transition t = twice(active(), s -> s.suspend(SuspensionReason.BOT_KICKED, mark(T0)));
        assertThat(t.after().status()).isEqualTo(SUSPENDED);
        assertThat(t.events()).containsExactly(new SubscriptionSuspended(ID, "BOT_KICKED"));
        assertThat(t.after().renewalStep(PERIOD_END.plus(Duration.ofDays(3)))).isEqualTo(new RenewalStep.NotDue());

        Transition second = twice(t.after(), s -> s.suspend(SuspensionReason.BILLING_KEY_DELETED, mark(T0)));
        assertThat(second.after().suspensions()).containsExactlyInAnyOrder(SuspensionReason.BOT_KICKED, SuspensionReason.BILLING_KEY_DELETED);
        assertThat(second.events()).isEmpty();
    }

    @Test
    void suspendAndCancelConvergeInAnyOrder() {
        Subscription suspendedThenDeleted = active().suspend(SuspensionReason.BOT_KICKED, mark(T0)).after().guildDeleted(T0).after();
        Subscription deletedThenSuspended = active().guildDeleted(T0).after();
        assertThat(deletedThenSuspended.suspend(SuspensionReason.BOT_KICKED, mark(T0)).changed()).isFalse();
        assertThat(suspendedThenDeleted).isEqualTo(deletedThenSuspended);
    }

    @Test
    void aKickWhileTheFirstChargeIsPendingStartsTheSubscriptionSuspended() {
        Transition kicked = twice(pending(), s -> s.suspend(SuspensionReason.BOT_KICKED, mark(T0)));
        assertThat(kicked.after().status()).as("its first charge decides").isEqualTo(PENDING);
        assertThat(kicked.events()).as("nothing outside billing has heard of it").isEmpty();

        Transition charged = twice(kicked.after(), s -> s.firstChargeSucceeded(T0.plusSeconds(5)));
        assertThat(charged.after().status()).isEqualTo(SUSPENDED);
        assertThat(charged.events()).extracting(e -> e.getClass().getSimpleName()).containsExactly("SubscriptionStarted", "SubscriptionSuspended");
        assertThat(charged.after().renewalStep(T0.plus(Duration.ofDays(40)))).as("no renewal while the bot is away")
                .isNotInstanceOf(RenewalStep.Charge.class);

        Transition back = charged.after().botBack(mark(T0.plusSeconds(60)));
        assertThat(back.after().status()).isEqualTo(ACTIVE);
        assertThat(back.events()).singleElement().isInstanceOf(SubscriptionResumed.class);
    }

    @Test
    void aBillingKeyDeletedWhileTheFirstChargeIsPendingStartsItSuspendedUntilANewKeyPays() {
        Subscription keyDeleted = pending().suspend(SuspensionReason.BILLING_KEY_DELETED, mark(T0)).after();
        Subscription started = keyDeleted.firstChargeSucceeded(T0.plusSeconds(5)).after();
        assertThat(started.status()).isEqualTo(SUSPENDED);
        assertThat(started.suspensions()).containsExactly(SuspensionReason.BILLING_KEY_DELETED);

        UUID newKey = UUID.randomUUID();
        Subscription paying = started.payWith(newKey, T0.plusSeconds(60)).after();
        assertThat(paying.status()).isEqualTo(ACTIVE);
        assertThat(paying.billingKeyId()).isEqualTo(newKey);
    }

    @Test
    void theBotBackBeforeTheFirstChargeSettledLeavesNothingToSuspendFor() {
        Subscription kicked = pending().suspend(SuspensionReason.BOT_KICKED, mark(T0)).after();
        assertThat(kicked.botBack(mark(T0.minusSeconds(1))).changed()).as("an install from before the kick").isFalse();

        Transition back = twice(kicked, s -> s.botBack(mark(T0.plusSeconds(1))));
        assertThat(back.after().status()).isEqualTo(PENDING);
        assertThat(back.after().suspensions()).isEmpty();
        assertThat(back.after().botKicked()).isNull();
        assertThat(back.events()).isEmpty();
        Transition charged = back.after().firstChargeSucceeded(T0.plusSeconds(5));
        assertThat(charged.after().status()).isEqualTo(ACTIVE);
        assertThat(charged.events()).singleElement().isInstanceOf(SubscriptionStarted.class);
    }

    @Test
    void aFirstChargeThatFailsAfterAKickLeavesNothingBehind() {
        Subscription kicked = pending().suspend(SuspensionReason.BOT_KICKED, mark(T0)).after();
        Subscription failed = kicked.firstChargeFailed(T0.plusSeconds(5)).after();
        assertThat(failed.status()).isEqualTo(SubscriptionStatus.CANCELED);
        assertThat(failed.suspensions()).isEmpty();
        assertThat(failed.botKicked()).isNull();
    }

    @Test
    void resumeLiftsOneReasonAtATimeAndRunsAgainWhenNoneIsLeft() {
        Subscription both = active().suspend(SuspensionReason.BOT_KICKED, mark(T0)).after()
                .suspend(SuspensionReason.BILLING_KEY_DELETED, mark(T0)).after();
        Transition botBack = twice(both, s -> s.botBack(mark(T0.plusSeconds(10))));
        assertThat(botBack.after().status()).isEqualTo(SUSPENDED);
        assertThatThrownBy(() -> botBack.after().resume(SuspensionReason.BILLING_KEY_DELETED, null, T0))
                .isInstanceOf(PlanChangeRejectedException.class);

        UUID newKey = UUID.randomUUID();
        Transition running = twice(botBack.after(), s -> s.resume(SuspensionReason.BILLING_KEY_DELETED, newKey, T0.plusSeconds(20)));
        assertThat(running.after().status()).isEqualTo(ACTIVE);
        assertThat(running.after().billingKeyId()).isEqualTo(newKey);
        assertThat(running.after().suspensions()).isEmpty();
        assertThat(botBack.events()).isEmpty();
        assertThat(running.events()).containsExactly(new SubscriptionResumed(ID, "BILLING_KEY_DELETED"));
        assertThat(active().botBack(mark(T0)).changed()).isFalse();
    }

    @Test
    void aSubscriptionFlaggedToEndWhileItsRenewalWasInFlightEndsWhenThatRenewalIsDeclined() {
        // the flag came while the renewal was being charged (the service refuses it now; rows from before may hold it)
        Subscription flagged = active().cancelAtPeriodEnd(PERIOD_END.plusSeconds(10)).after();
        Subscription pastDue = flagged.renewalFailed(1, 1, ATTEMPT, PERIOD_END.plusSeconds(20), DUNNING).after();
        assertThat(pastDue.status()).isEqualTo(PAST_DUE);
        assertThat(pastDue.renewalStep(PERIOD_END.plusSeconds(60))).isInstanceOf(RenewalStep.Expire.class);

        Transition ended = twice(pastDue, s -> s.periodEnded(PERIOD_END.plusSeconds(60)));
        assertThat(ended.after().status()).isEqualTo(CANCELED);
        assertThat(ended.events()).containsExactly(new SubscriptionCanceled(ID, false));
    }

    @Test
    void aSubscriptionCanceledAtPeriodEndWhosePeriodEndedWhileSuspendedEndsInsteadOfRunningAgain() {
        Subscription suspended = active().cancelAtPeriodEnd(T0).after().suspend(SuspensionReason.BOT_KICKED, mark(T0.plusSeconds(5))).after();
        Transition back = twice(suspended, s -> s.botBack(mark(PERIOD_END.plusSeconds(30))));
        assertThat(back.after().status()).isEqualTo(CANCELED);
        // the license ends, and the suspension it kept for the subscription with it
        assertThat(back.events()).containsExactly(new SubscriptionCanceled(ID, false));
        // before the period's end it runs again, still to end with its period
        Transition early = suspended.botBack(mark(PERIOD_END.minusSeconds(30)));
        assertThat(early.after().status()).isEqualTo(ACTIVE);
        assertThat(early.after().cancelAtPeriodEnd()).isTrue();
    }

    @Test
    void aBotInstalledFromBeforeTheKickDoesNotLiftIt() {
        Subscription kicked = active().suspend(SuspensionReason.BOT_KICKED, mark(T0.plusSeconds(10))).after();
        assertThat(kicked.botKicked()).isEqualTo(mark(T0.plusSeconds(10)));
        // a late or redriven record of the install before the kick
        assertThat(kicked.botBack(mark(T0.plusSeconds(5))).changed()).isFalse();
        Transition back = kicked.botBack(mark(T0.plusSeconds(20)));
        assertThat(back.after().status()).isEqualTo(ACTIVE);
        assertThat(back.after().botKicked()).isNull();
    }

    @Test
    void theGuildsStreamOrdersTheKickAndTheReturnBySequenceNotByTheClocksOfTheReplicasThatWroteThem() {
        // the replica that wrote the kick runs three seconds ahead of the one that wrote the return after it
        Subscription kicked = active().suspend(SuspensionReason.BOT_KICKED, new StreamMark(7, T0.plusSeconds(13))).after();
        Transition back = kicked.botBack(new StreamMark(8, T0.plusSeconds(10)));
        assertThat(back.after().status()).isEqualTo(ACTIVE);

        // the install before the kick, redriven: older in the stream, whatever its time
        assertThat(kicked.botBack(new StreamMark(6, T0.plusSeconds(20))).changed()).isFalse();
    }

    @Test
    void anotherBillingKeyPaysARunningSubscriptionAndResumesOneSuspendedForItsDeletedKey() {
        UUID newKey = UUID.randomUUID();
        Transition changedCard = twice(active(), s -> s.payWith(newKey, T0));
        assertThat(changedCard.after().billingKeyId()).isEqualTo(newKey);
        assertThat(changedCard.after().status()).isEqualTo(ACTIVE);
        assertThat(changedCard.events()).isEmpty();

        Subscription keyDeleted = active().suspend(SuspensionReason.BILLING_KEY_DELETED, mark(T0)).after();
        Transition resumed = twice(keyDeleted, s -> s.payWith(newKey, T0.plusSeconds(5)));
        assertThat(resumed.after().status()).isEqualTo(ACTIVE);
        assertThat(resumed.after().billingKeyId()).isEqualTo(newKey);
        assertThat(resumed.events()).containsExactly(new SubscriptionResumed(ID, "BILLING_KEY_DELETED"));

        // kicked as well: the new card is kept, the bot's return is still awaited
        Subscription both = keyDeleted.suspend(SuspensionReason.BOT_KICKED, mark(T0)).after();
        Transition stillKicked = both.payWith(newKey, T0.plusSeconds(5));
        assertThat(stillKicked.after().status()).isEqualTo(SUSPENDED);
        assertThat(stillKicked.after().suspensions()).containsExactly(SuspensionReason.BOT_KICKED);
        assertThat(stillKicked.events()).isEmpty();

        assertThatThrownBy(() -> pending().payWith(newKey, T0)).isInstanceOf(IllegalTransitionException.class);
        assertThatThrownBy(() -> active().cancelNow(T0).after().payWith(newKey, T0)).isInstanceOf(IllegalTransitionException.class);
    }

    @Test
    void resumeContinuesDunningWhereItStopped() {
        Subscription pastDue = active().renewalFailed(1, 1, ATTEMPT, PERIOD_END, DUNNING).after();
        Subscription resumed = pastDue.suspend(SuspensionReason.BOT_KICKED, mark(PERIOD_END.plusSeconds(5))).after()
                .botBack(mark(PERIOD_END.plus(Duration.ofDays(2)))).after();
        assertThat(resumed.status()).isEqualTo(PAST_DUE);
        assertThat(resumed.renewalStep(PERIOD_END.plus(Duration.ofDays(2))))
                .isEqualTo(new RenewalStep.Charge(ID, 1, 2, "PRO", 9_900, "sub-" + ID + "-p1-a2"));
    }

    @Test
    void periodsThatEndedWhileSuspendedAreNeverCharged() {
        Subscription suspended = active().suspend(SuspensionReason.BOT_KICKED, mark(T0.plusSeconds(5))).after();
        Instant back = Instant.parse("2027-02-10T00:00:00Z"); // inside period 3 (2027-02-01 .. 2027-03-01)
        Subscription resumed = suspended.botBack(mark(back)).after();
        assertThat(resumed.status()).isEqualTo(ACTIVE);
        assertThat(resumed.renewalStep(back)).isEqualTo(new RenewalStep.Charge(ID, 3, 1, "PRO", 9_900, "sub-" + ID + "-p3-a1"));
        assertThat(resumed.renewalSucceeded(3, ATTEMPT, back).after().paidPeriod().end()).isEqualTo(Instant.parse("2027-03-01T00:00:00Z"));
    }

    @Test
    void aChargeInFlightWhenSuspendedStillCountsWhenItResolves() {
        Subscription suspended = active().suspend(SuspensionReason.BOT_KICKED, mark(T0)).after();
        Transition paid = twice(suspended, s -> s.renewalSucceeded(1, ATTEMPT, PERIOD_END));
        assertThat(paid.after().status()).isEqualTo(SUSPENDED);
        assertThat(paid.after().paidThrough()).isEqualTo(1);
        Transition failed = twice(suspended, s -> s.renewalFailed(1, 1, ATTEMPT, PERIOD_END, DUNNING));
        assertThat(failed.after().status()).isEqualTo(SUSPENDED);
        assertThat(failed.events()).containsExactly(new PaymentFailed(ID, ATTEMPT, 1));
    }

    @Test
    void aChargeThatSucceedsAfterCancelMustBeRefunded() {
        Subscription canceled = active().cancelNow(T0.plusSeconds(5)).after();
        assertThatThrownBy(() -> canceled.renewalSucceeded(1, ATTEMPT, PERIOD_END)).isInstanceOf(IllegalTransitionException.class)
                .hasMessageContaining("refunded");
        assertThat(canceled.renewalFailed(1, 1, ATTEMPT, PERIOD_END, DUNNING).changed()).isFalse();
    }

    @Test
    void upgradeChargesTheProratedDifferenceAndAppliesAtOnce() {
        Instant at = Instant.parse("2026-11-21T00:00:00Z");
        UpgradeQuote quote = active().quoteUpgrade(PREMIUM, at);
        assertThat(quote).isEqualTo(new UpgradeQuote(ID, "PRO", "PREMIUM", 0, 3_333, "sub-" + ID + "-p0-up-PREMIUM-a1"));
        assertThat(active().quoteUpgrade(PREMIUM, at)).isEqualTo(quote);
        // tried again after a failure: the same charge under a key of its own (a gateway answers a key once, for good)
        assertThat(quote.attempt(2)).isEqualTo(new UpgradeQuote(ID, "PRO", "PREMIUM", 0, 3_333, "sub-" + ID + "-p0-up-PREMIUM-a2"));

        Transition t = twice(active(), s -> s.upgradeCharged(quote, at));
        assertThat(t.after().planCode()).isEqualTo("PREMIUM");
        assertThat(t.events()).containsExactly(new PlanUpgraded(ID, "PRO", "PREMIUM"));
        // the next renewal is at the new price
        assertThat(((RenewalStep.Charge) t.after().renewalStep(PERIOD_END)).amount()).isEqualTo(19_900);
    }

    @Test
    void upgradeRules() {
        Instant at = T0.plus(Duration.ofDays(3));
        assertThatThrownBy(() -> active().quoteUpgrade(PRO, at)).isInstanceOf(PlanChangeRejectedException.class);
        assertThatThrownBy(() -> active().quoteUpgrade(PREMIUM, PERIOD_END)).isInstanceOf(IllegalTransitionException.class);
        assertThatThrownBy(() -> pending().quoteUpgrade(PREMIUM, at)).isInstanceOf(IllegalTransitionException.class);
        assertThatThrownBy(() -> active().cancelAtPeriodEnd(at).after().quoteUpgrade(PREMIUM, at))
                .isInstanceOf(IllegalTransitionException.class);
        UpgradeQuote quote = active().quoteUpgrade(PREMIUM, at);
        Subscription canceled = active().cancelNow(at).after();
        assertThatThrownBy(() -> canceled.upgradeCharged(quote, at)).isInstanceOf(IllegalTransitionException.class);
        Subscription renewed = active().renewalSucceeded(1, ATTEMPT, PERIOD_END).after();
        assertThatThrownBy(() -> renewed.upgradeCharged(quote, PERIOD_END)).isInstanceOf(IllegalTransitionException.class)
                .hasMessageContaining("refunded");
    }

    @Test
    void downgradeTakesEffectWithTheNextPaidPeriod() {
        Subscription premium = Subscription.open(ID, GUILD, USER, KEY, PREMIUM).firstChargeSucceeded(T0).after();
        Transition t = twice(premium, s -> s.downgrade(PRO, T0.plus(Duration.ofDays(5))));
        assertThat(t.after().planCode()).isEqualTo("PREMIUM");
        assertThat(t.events()).containsExactly(new PlanDowngraded(ID, "PREMIUM", "PRO", PERIOD_END));
        assertThat(((RenewalStep.Charge) t.after().renewalStep(PERIOD_END)).amount()).isEqualTo(9_900);
        Subscription renewed = t.after().renewalSucceeded(1, ATTEMPT, PERIOD_END).after();
        assertThat(renewed.planCode()).isEqualTo("PRO");
        assertThat(renewed.pendingPlanCode()).isNull();
    }

    @Test
    void downgradeRules() {
        Subscription premium = Subscription.open(ID, GUILD, USER, KEY, PREMIUM).firstChargeSucceeded(T0).after();
        assertThatThrownBy(() -> active().downgrade(PREMIUM, T0)).isInstanceOf(PlanChangeRejectedException.class);
        assertThatThrownBy(() -> premium.downgrade(FREE, T0)).isInstanceOf(PlanChangeRejectedException.class)
                .hasMessageContaining("cancel at period end");
        assertThatThrownBy(() -> pending().downgrade(PRO, T0)).isInstanceOf(IllegalTransitionException.class);
        // an upgrade in between drops the pending downgrade
        Subscription downgraded = premium.downgrade(PRO, T0).after();
        assertThat(downgraded.cancelAtPeriodEnd(T0).after().pendingPlanCode()).isNull();
    }

    @Test
    void everyIllegalTransitionNamesTheStatusAndTheTrigger() {
        Subscription canceled = active().cancelNow(T0).after();
        assertThatThrownBy(() -> canceled.downgrade(PRO, T0))
                .isInstanceOfSatisfying(IllegalTransitionException.class, e -> {
                    assertThat(e.status()).isEqualTo(CANCELED);
                    assertThat(e.trigger()).isEqualTo(Trigger.DOWNGRADE);
                });
    }
}
