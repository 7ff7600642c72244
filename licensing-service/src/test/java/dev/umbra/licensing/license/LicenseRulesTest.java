package dev.umbra.licensing.license;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.StreamMark;
import dev.umbra.events.licensing.LicenseCanceled;
import dev.umbra.events.licensing.LicenseDowngraded;
import dev.umbra.events.licensing.LicenseExtended;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.events.licensing.LicenseSuspended;
import dev.umbra.events.plan.Plan;
import dev.umbra.platform.inbox.RejectedEventException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class LicenseRulesTest {

    static final String GUILD = "123456789012345678";
    static final UUID SUBSCRIPTION = UUID.fromString("00000000-0000-0000-0000-0000000000aa");
    static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");
    static final Instant PERIOD_END = Instant.parse("2026-12-01T00:00:00Z");
    static final Duration GRACE = Duration.ofDays(3);

    /** An event that carried no sequence: its time orders it. */
    static StreamMark mark(Instant at) {
        return new StreamMark(0, at);
    }

    static LicenseState free() {
        return LicenseRules.botInstalled(null, GUILD, mark(T0));
    }

    static LicenseState pro() {
        return LicenseRules.subscriptionStarted(free(), GUILD, SUBSCRIPTION, Plan.PRO, PERIOD_END, mark(T0.plusSeconds(10)));
    }

    /** Applies a rule twice: the first time it changes the license and says so once, the second time nothing at all. */
    static List<DomainEvent> appliedTwice(LicenseState start, UnaryOperator<LicenseState> rule) {
        LicenseState once = rule.apply(start);
        LicenseState twice = rule.apply(once);
        assertThat(twice).isEqualTo(once);
        assertThat(LicenseChanges.between(once, twice)).isEmpty();
        return LicenseChanges.between(start, once);
    }

    @Test
    void botInstalledGrantsFreeOnce() {
        List<DomainEvent> events = appliedTwice(null, l -> LicenseRules.botInstalled(l, GUILD, mark(T0)));
        assertThat(events).singleElement().isInstanceOfSatisfying(LicenseGranted.class,
                e -> assertThat(e.planCode()).isEqualTo("FREE"));
    }

    @Test
    void aSubscriptionEndedWhileBillingHadItSuspendedIsToldAsADowngradeAndTheLicenseActiveAgain() {
        LicenseState suspended = LicenseRules.subscriptionSuspended(pro(), SUBSCRIPTION, "BILLING_KEY_DELETED", mark(T0.plusSeconds(20)));
        List<DomainEvent> events = appliedTwice(suspended, l -> LicenseRules.subscriptionCanceled(l, SUBSCRIPTION, false, mark(T0.plusSeconds(30))));
        assertThat(events).hasSize(2);
        assertThat(events.get(0)).isInstanceOfSatisfying(LicenseDowngraded.class, e -> {
            assertThat(e.oldPlan()).isEqualTo("PRO");
            assertThat(e.newPlan()).isEqualTo("FREE");
        });
        assertThat(events.get(1)).isInstanceOfSatisfying(LicenseGranted.class, e -> assertThat(e.planCode()).isEqualTo("FREE"));
    }

    @Test
    void aGuildDeletedBeforeItsInstallWasSeenIsATombstoneThatTellsNobodyAndThatALaterSubscriptionDoesNotRevive() {
        LicenseState tombstone = LicenseRules.guildDeleted(null, GUILD, mark(T0.plusSeconds(60)));
        assertThat(tombstone.status()).isEqualTo(LicenseStatus.CANCELED);
        assertThat(LicenseChanges.between(null, tombstone)).isEmpty();

        LicenseState started = LicenseRules.subscriptionStarted(tombstone, GUILD, SUBSCRIPTION, Plan.PRO, PERIOD_END, mark(T0.plusSeconds(10)));
        assertThat(started.status()).isEqualTo(LicenseStatus.CANCELED);
        assertThat(LicenseChanges.between(tombstone, started)).isEmpty();
    }

    @Test
    void aNewSubscriptionStampedBeforeTheOldOnesEndByAReplicaWhoseClockIsBehindIsOrderedByCommitTime() {
        LicenseState canceled = LicenseRules.subscriptionCanceled(pro(), SUBSCRIPTION, false, new StreamMark(2, T0.plusSeconds(100), T0.plusSeconds(100)));
        UUID next = UUID.fromString("00000000-0000-0000-0000-0000000000bb");
        // subscribed again at once, on a billing replica whose clock is two seconds behind; billing's database committed it later
        LicenseState started = LicenseRules.subscriptionStarted(canceled, GUILD, next, Plan.PREMIUM, PERIOD_END,
                new StreamMark(1, T0.plusSeconds(99), T0.plusSeconds(101)));
        assertThat(started.plan()).isEqualTo(Plan.PREMIUM);
        assertThat(started.subscriptionId()).isEqualTo(next);

        // the old subscription's start again, from a record without a commit time (re-produced by hand): by the time it occurred
        assertThat(LicenseRules.subscriptionStarted(started, GUILD, SUBSCRIPTION, Plan.PRO, PERIOD_END, mark(T0.plusSeconds(10))))
                .isEqualTo(started);
    }

    @Test
    void botKickedSuspendsOnce() {
        List<DomainEvent> events = appliedTwice(free(), l -> LicenseRules.botKicked(l, mark(T0.plusSeconds(60))));
        assertThat(events).singleElement().isInstanceOfSatisfying(LicenseSuspended.class,
                e -> assertThat(e.reason()).isEqualTo(LicenseState.BOT_KICKED));
    }

    @Test
    void aReinstallAfterAKickReactivates() {
        LicenseState kicked = LicenseRules.botKicked(pro(), mark(T0.plusSeconds(60)));
        List<DomainEvent> events = appliedTwice(kicked, l -> LicenseRules.botInstalled(l, GUILD, mark(T0.plusSeconds(120))));
        assertThat(events).singleElement().isInstanceOfSatisfying(LicenseGranted.class,
                e -> assertThat(e.planCode()).isEqualTo("PRO"));
    }

    @Test
    void aStaleInstallDoesNotLiftALaterKick() {
        LicenseState kicked = LicenseRules.botKicked(free(), mark(T0.plusSeconds(60)));
        assertThat(LicenseRules.botInstalled(kicked, GUILD, mark(T0.plusSeconds(30)))).isEqualTo(kicked);
    }

    @Test
    void guildDeletedCancelsOnceAndForGood() {
        List<DomainEvent> events = appliedTwice(pro(), l -> LicenseRules.guildDeleted(l, GUILD, mark(T0.plusSeconds(60))));
        assertThat(events).singleElement().isInstanceOf(LicenseCanceled.class);
        LicenseState canceled = LicenseRules.guildDeleted(pro(), GUILD, mark(T0.plusSeconds(60)));
        assertThat(LicenseRules.botInstalled(canceled, GUILD, mark(T0.plusSeconds(90))).status()).isEqualTo(LicenseStatus.CANCELED);
    }

    @Test
    void subscriptionStartedGrantsThePaidPlanOnce() {
        List<DomainEvent> events = appliedTwice(free(),
                l -> LicenseRules.subscriptionStarted(l, GUILD, SUBSCRIPTION, Plan.PRO, PERIOD_END, mark(T0.plusSeconds(10))));
        assertThat(events).singleElement().isInstanceOfSatisfying(LicenseGranted.class,
                e -> assertThat(e.planCode()).isEqualTo("PRO"));
        assertThat(pro().effectiveExpiresAt()).isEqualTo(PERIOD_END);
    }

    @Test
    void subscriptionStartedBeforeTheInstallCreatesThePaidLicense() {
        LicenseState license = LicenseRules.subscriptionStarted(null, GUILD, SUBSCRIPTION, Plan.PREMIUM, PERIOD_END, mark(T0));
        assertThat(license.plan()).isEqualTo(Plan.PREMIUM);
        assertThat(LicenseRules.botInstalled(license, GUILD, mark(T0.minusSeconds(5))).plan()).isEqualTo(Plan.PREMIUM);
    }

    @Test
    void paymentSucceededExtendsOnceAndNeverBackwards() {
        Instant next = PERIOD_END.plus(Duration.ofDays(30));
        List<DomainEvent> events = appliedTwice(pro(), l -> LicenseRules.paymentSucceeded(l, SUBSCRIPTION, next, mark(T0.plusSeconds(20))));
        assertThat(events).singleElement().isInstanceOfSatisfying(LicenseExtended.class,
                e -> assertThat(e.newExpiresAt()).isEqualTo(next));
        LicenseState extended = LicenseRules.paymentSucceeded(pro(), SUBSCRIPTION, next, mark(T0.plusSeconds(20)));
        assertThat(LicenseRules.paymentSucceeded(extended, SUBSCRIPTION, PERIOD_END, mark(T0.plusSeconds(30))).expiresAt()).isEqualTo(next);
    }

    @Test
    void paymentFailedFinalDowngradesToFreeOnce() {
        List<DomainEvent> events = appliedTwice(pro(), l -> LicenseRules.paymentFailedFinal(l, SUBSCRIPTION, mark(T0.plusSeconds(20))));
        assertThat(events).singleElement().isInstanceOfSatisfying(LicenseDowngraded.class, e -> {
            assertThat(e.oldPlan()).isEqualTo("PRO");
            assertThat(e.newPlan()).isEqualTo("FREE");
        });
    }

    @Test
    void aSubscriptionCanceledNowEndsThePaidPlanAtOnceAndOneCanceledAtPeriodEndDoesNot() {
        List<DomainEvent> events = appliedTwice(pro(), l -> LicenseRules.subscriptionCanceled(l, SUBSCRIPTION, false, mark(T0.plusSeconds(20))));
        assertThat(events).singleElement().isInstanceOfSatisfying(LicenseDowngraded.class, e -> {
            assertThat(e.oldPlan()).isEqualTo("PRO");
            assertThat(e.newPlan()).isEqualTo("FREE");
        });
        assertThat(LicenseChanges.between(pro(), LicenseRules.subscriptionCanceled(pro(), SUBSCRIPTION, true, mark(T0.plusSeconds(20)))))
                .isEmpty();
    }

    @Test
    void aSubscriptionThatEndsWhileBillingSuspendsItLeavesNoSuspensionBehindOnceTheBotIsBack() {
        LicenseState kicked = LicenseRules.botKicked(pro(), mark(T0.plusSeconds(20)));
        LicenseState suspended = LicenseRules.subscriptionSuspended(kicked, SUBSCRIPTION, "BOT_KICKED", mark(T0.plusSeconds(21)));
        for (LicenseState ended : List.of(LicenseRules.subscriptionCanceled(suspended, SUBSCRIPTION, false, mark(T0.plusSeconds(30))),
                LicenseRules.paymentFailedFinal(suspended, SUBSCRIPTION, mark(T0.plusSeconds(30))))) {
            LicenseState back = LicenseRules.botInstalled(ended, GUILD, mark(T0.plusSeconds(40)));
            assertThat(back.status()).isEqualTo(LicenseStatus.ACTIVE);
            assertThat(back.plan()).isEqualTo(Plan.FREE);
        }
    }

    @Test
    void eventsOfAnotherSubscriptionChangeNothing() {
        LicenseState pro = pro();
        assertThat(LicenseRules.paymentFailedFinal(pro, UUID.randomUUID(), mark(T0.plusSeconds(20)))).isEqualTo(pro);
    }

    @Test
    void subscriptionSuspendedSuspendsOnceAndIsANoOpWhenAlreadySuspended() {
        List<DomainEvent> events = appliedTwice(pro(),
                l -> LicenseRules.subscriptionSuspended(l, SUBSCRIPTION, "BILLING_KEY_DELETED", mark(T0.plusSeconds(20))));
        assertThat(events).singleElement().isInstanceOfSatisfying(LicenseSuspended.class,
                e -> assertThat(e.reason()).isEqualTo("BILLING_KEY_DELETED"));

        LicenseState kicked = LicenseRules.botKicked(pro(), mark(T0.plusSeconds(20)));
        LicenseState echoed = LicenseRules.subscriptionSuspended(kicked, SUBSCRIPTION, "BOT_KICKED", mark(T0.plusSeconds(21)));
        assertThat(LicenseChanges.between(kicked, echoed)).isEmpty();
    }

    @Test
    void subscriptionResumedGrantsTheLicenseAgainOnceNothingElseSuspendsIt() {
        LicenseState keyDeleted = LicenseRules.subscriptionSuspended(pro(), SUBSCRIPTION, "BILLING_KEY_DELETED", mark(T0.plusSeconds(20)));
        List<DomainEvent> events = appliedTwice(keyDeleted, l -> LicenseRules.subscriptionResumed(l, SUBSCRIPTION, mark(T0.plusSeconds(30))));
        assertThat(events).singleElement().isInstanceOfSatisfying(LicenseGranted.class, e -> assertThat(e.planCode()).isEqualTo("PRO"));

        LicenseState kickedToo = LicenseRules.botKicked(keyDeleted, mark(T0.plusSeconds(25)));
        LicenseState resumed = LicenseRules.subscriptionResumed(kickedToo, SUBSCRIPTION, mark(T0.plusSeconds(30)));
        assertThat(resumed.status()).isEqualTo(LicenseStatus.SUSPENDED);
        assertThat(resumed.suspensionReason()).isEqualTo("BOT_KICKED");
        assertThat(LicenseChanges.between(kickedToo, resumed)).isEmpty();
        assertThat(LicenseRules.subscriptionResumed(keyDeleted, UUID.randomUUID(), mark(T0.plusSeconds(30)))).isEqualTo(keyDeleted);
    }

    @Test
    void planUpgradedAppliesAtOnce() {
        List<DomainEvent> events = appliedTwice(pro(), l -> LicenseRules.planUpgraded(l, SUBSCRIPTION, Plan.PREMIUM, mark(T0.plusSeconds(20))));
        assertThat(events).singleElement().isInstanceOfSatisfying(LicenseGranted.class,
                e -> assertThat(e.planCode()).isEqualTo("PREMIUM"));
    }

    @Test
    void planDowngradedWaitsForItsEffectiveTimeThenTheSweeperAppliesIt() {
        Instant now = T0.plusSeconds(30);
        Instant effective = PERIOD_END;
        List<DomainEvent> events = appliedTwice(pro(),
                l -> LicenseRules.planDowngraded(l, SUBSCRIPTION, Plan.FREE, effective, mark(T0.plusSeconds(20)), now));
        assertThat(events).isEmpty();
        LicenseState pending = LicenseRules.planDowngraded(pro(), SUBSCRIPTION, Plan.FREE, effective, mark(T0.plusSeconds(20)), now);
        assertThat(pending.plan()).isEqualTo(Plan.PRO);
        assertThat(LicenseRules.sweep(pending, effective.minusSeconds(1), GRACE)).isEqualTo(pending);
        assertThat(LicenseRules.nextSweepAt(pending, GRACE)).isEqualTo(effective);

        LicenseState swept = LicenseRules.sweep(pending, effective, GRACE);
        assertThat(swept.plan()).isEqualTo(Plan.FREE);
        assertThat(LicenseChanges.between(pending, swept)).singleElement().isInstanceOf(LicenseDowngraded.class);
        assertThat(LicenseRules.sweep(swept, effective, GRACE)).isEqualTo(swept);
    }

    @Test
    void aDowngradeWhoseTimeHasPassedAppliesAtOnce() {
        LicenseState premium = LicenseRules.planUpgraded(pro(), SUBSCRIPTION, Plan.PREMIUM, mark(T0.plusSeconds(15)));
        LicenseState downgraded = LicenseRules.planDowngraded(premium, SUBSCRIPTION, Plan.PRO, T0, mark(T0.plusSeconds(20)), T0.plusSeconds(30));
        assertThat(downgraded.plan()).isEqualTo(Plan.PRO);
    }

    @Test
    void aSubscriptionsStartReadAgainAfterTheSweeperEndedItsPeriodChangesNothing() {
        LicenseState lapsed = LicenseRules.sweep(pro(), PERIOD_END.plus(GRACE).plusSeconds(1), GRACE);
        assertThat(lapsed.plan()).isEqualTo(Plan.FREE);

        LicenseState again = LicenseRules.subscriptionStarted(lapsed, GUILD, SUBSCRIPTION, Plan.PRO, PERIOD_END, mark(T0.plusSeconds(10)));

        assertThat(again).isEqualTo(lapsed);
        assertThat(LicenseChanges.between(lapsed, again)).isEmpty();
    }

    @Test
    void theSweeperEndsAPaidPeriodOnlyAfterTheGrace() {
        LicenseState pro = pro();
        assertThat(LicenseRules.sweep(pro, PERIOD_END.plus(GRACE), GRACE)).isEqualTo(pro);
        Instant next = LicenseRules.nextSweepAt(pro, GRACE);
        assertThat(next).isAfter(PERIOD_END.plus(GRACE));
        assertThat(LicenseRules.sweep(pro, next, GRACE).plan()).as("due at the first instant the sweep changes it").isEqualTo(Plan.FREE);
        LicenseState swept = LicenseRules.sweep(pro, PERIOD_END.plus(GRACE).plusSeconds(1), GRACE);
        assertThat(LicenseRules.nextSweepAt(swept, GRACE)).as("nothing left to sweep").isNull();
        assertThat(swept.plan()).isEqualTo(Plan.FREE);
        assertThat(swept.effectiveExpiresAt()).isNull();
        assertThat(LicenseChanges.between(pro, swept)).singleElement().isInstanceOf(LicenseDowngraded.class);

        LicenseState paidAgain = LicenseRules.paymentSucceeded(swept, SUBSCRIPTION, PERIOD_END.plus(Duration.ofDays(30)), mark(T0.plusSeconds(40)));
        assertThat(paidAgain.plan()).isEqualTo(Plan.PRO);
        assertThat(LicenseChanges.between(swept, paidAgain)).singleElement().isInstanceOf(LicenseGranted.class);
    }

    @Test
    void anUnknownPlanCodeIsRejected() {
        assertThatThrownBy(() -> LicenseService.known("ULTRA")).isInstanceOf(RejectedEventException.class);
    }

    @Test
    void withinTheGuildsStreamTheSequenceDecidesNotTheClocksOfTheReplicasThatWroteTheEvents() {
        // two replicas of guild-service: the one that wrote the kick runs two seconds ahead of the one that wrote the reinstall
        LicenseState kicked = LicenseRules.botKicked(LicenseRules.botInstalled(null, GUILD, new StreamMark(1, T0)), new StreamMark(2, T0.plusSeconds(3)));
        LicenseState reinstalled = LicenseRules.botInstalled(kicked, GUILD, new StreamMark(3, T0.plusSeconds(1)));
        assertThat(reinstalled.status()).isEqualTo(LicenseStatus.ACTIVE);
        assertThat(LicenseRules.staleForGuild(kicked, new StreamMark(3, T0.plusSeconds(1)))).isFalse();

        // the kick again, redriven from the dead-letter topic after the reinstall: older, skipped whatever its time
        StreamMark redrivenKick = new StreamMark(2, T0.plusSeconds(3));
        assertThat(LicenseRules.staleForGuild(reinstalled, redrivenKick)).isTrue();
        assertThat(LicenseRules.botKicked(reinstalled, redrivenKick)).isEqualTo(reinstalled);
    }

    @Test
    void anEventWithoutASequenceIsOrderedByItsTime() {
        LicenseState kicked = LicenseRules.botKicked(LicenseRules.botInstalled(null, GUILD, new StreamMark(1, T0)), new StreamMark(2, T0.plusSeconds(60)));
        assertThat(LicenseRules.staleForGuild(kicked, mark(T0.plusSeconds(30)))).isTrue();
        assertThat(LicenseRules.staleForGuild(kicked, mark(T0.plusSeconds(90)))).isFalse();
    }

    @Test
    void withinASubscriptionTheSequenceDecidesAndBetweenTwoSubscriptionsTheTime() {
        LicenseState paid = LicenseRules.subscriptionStarted(free(), GUILD, SUBSCRIPTION, Plan.PRO, PERIOD_END, new StreamMark(1, T0.plusSeconds(10)));
        LicenseState suspended = LicenseRules.subscriptionSuspended(paid, SUBSCRIPTION, "BILLING_KEY_DELETED", new StreamMark(2, T0.plusSeconds(30)));
        // billing's other replica, its clock behind, resumed it: later in the stream, earlier on the clock
        LicenseState resumed = LicenseRules.subscriptionResumed(suspended, SUBSCRIPTION, new StreamMark(3, T0.plusSeconds(20)));
        assertThat(resumed.status()).isEqualTo(LicenseStatus.ACTIVE);
        assertThat(LicenseRules.subscriptionSuspended(resumed, SUBSCRIPTION, "BILLING_KEY_DELETED", new StreamMark(2, T0.plusSeconds(30))))
                .as("the suspension redriven").isEqualTo(resumed);

        // another subscription of the guild: its sequence says nothing about this one's, its time does
        UUID next = UUID.fromString("00000000-0000-0000-0000-0000000000bb");
        assertThat(LicenseRules.staleForSubscription(resumed, next, new StreamMark(1, T0.plusSeconds(25)))).isFalse();
        assertThat(LicenseRules.staleForSubscription(resumed, next, new StreamMark(9, T0.plusSeconds(15)))).isTrue();
        LicenseState moved = LicenseRules.subscriptionStarted(resumed, GUILD, next, Plan.PREMIUM, PERIOD_END, new StreamMark(1, T0.plusSeconds(25)));
        assertThat(moved.subscriptionId()).isEqualTo(next);
        assertThat(moved.plan()).isEqualTo(Plan.PREMIUM);
    }

    @Test
    void anEventRedrivenAfterLaterOnesOfItsSubscriptionAppliesUnlessALaterOneWroteTheSameFields() {
        LicenseState paid = LicenseRules.subscriptionStarted(free(), GUILD, SUBSCRIPTION, Plan.PRO, PERIOD_END, new StreamMark(1, T0.plusSeconds(10)));
        Instant nextEnd = PERIOD_END.plus(Duration.ofDays(30));
        LicenseState renewed = LicenseRules.paymentSucceeded(paid, SUBSCRIPTION, nextEnd, new StreamMark(3, T0.plusSeconds(30)));

        // the upgrade was dead-lettered (a plan licensing did not know yet) and is redriven after the renewal: applied
        LicenseState upgraded = LicenseRules.planUpgraded(renewed, SUBSCRIPTION, Plan.PREMIUM, new StreamMark(2, T0.plusSeconds(20)));
        assertThat(upgraded.plan()).isEqualTo(Plan.PREMIUM);
        assertThat(upgraded.expiresAt()).isEqualTo(nextEnd);
        assertThat(LicenseRules.staleForSubscription(renewed, SUBSCRIPTION, new StreamMark(2, T0.plusSeconds(20)), LicenseRules.Fields.PLAN)).isFalse();
        assertThat(upgraded.subscriptionEvent().sequence()).as("the subscription's latest event stays the latest").isEqualTo(3);

        // but not over a later plan event: a downgrade that came after it decides
        LicenseState downgraded = LicenseRules.planDowngraded(renewed, SUBSCRIPTION, Plan.PRO, T0, new StreamMark(4, T0.plusSeconds(40)), T0.plusSeconds(40));
        assertThat(LicenseRules.planUpgraded(downgraded, SUBSCRIPTION, Plan.PREMIUM, new StreamMark(2, T0.plusSeconds(20)))).isEqualTo(downgraded);

        // and not once the subscription ended, whatever it would write
        LicenseState canceled = LicenseRules.subscriptionCanceled(renewed, SUBSCRIPTION, false, new StreamMark(4, T0.plusSeconds(40)));
        assertThat(LicenseRules.planUpgraded(canceled, SUBSCRIPTION, Plan.PREMIUM, new StreamMark(2, T0.plusSeconds(20)))).isEqualTo(canceled);
        assertThat(LicenseRules.subscriptionSuspended(canceled, SUBSCRIPTION, "BOT_KICKED", new StreamMark(2, T0.plusSeconds(20)))).isEqualTo(canceled);
        assertThat(canceled.plan()).isEqualTo(Plan.FREE);
    }

    @Test
    void anUpgradeRedrivenAfterALaterDowngradeForTheNextPeriodAppliesNowAndLeavesTheDowngradePendingOrAppliedBySweeper() {
        LicenseState paid = LicenseRules.subscriptionStarted(free(), GUILD, SUBSCRIPTION, Plan.PRO, PERIOD_END, new StreamMark(1, T0.plusSeconds(10)));
        // billing: upgraded to PREMIUM (2), then a downgrade back to PRO from the period's end (3); the upgrade is redriven last
        LicenseState downgraded = LicenseRules.planDowngraded(paid, SUBSCRIPTION, Plan.PRO, PERIOD_END, new StreamMark(3, T0.plusSeconds(30)),
                T0.plusSeconds(30));
        LicenseState upgraded = LicenseRules.planUpgraded(downgraded, SUBSCRIPTION, Plan.PREMIUM, new StreamMark(2, T0.plusSeconds(20)));
        assertThat(upgraded.plan()).isEqualTo(Plan.PREMIUM);
        assertThat(upgraded.pendingPlan()).isEqualTo(Plan.PRO);
        assertThat(upgraded.pendingPlanAt()).isEqualTo(PERIOD_END);

        // the same upgrade redriven after the sweeper applied that downgrade: too late, PRO stays
        LicenseState swept = LicenseRules.sweep(downgraded, PERIOD_END.plusSeconds(1), GRACE);
        assertThat(swept.plan()).isEqualTo(Plan.PRO);
        assertThat(LicenseRules.planUpgraded(swept, SUBSCRIPTION, Plan.PREMIUM, new StreamMark(2, T0.plusSeconds(20)))).isEqualTo(swept);
    }

    @Test
    void aSuspensionRedrivenAfterAPlanChangeOfItsSubscriptionAppliesAndTheResumeThatFollowedItStillDecides() {
        LicenseState paid = LicenseRules.subscriptionStarted(free(), GUILD, SUBSCRIPTION, Plan.PRO, PERIOD_END, new StreamMark(1, T0.plusSeconds(10)));
        LicenseState upgraded = LicenseRules.planUpgraded(paid, SUBSCRIPTION, Plan.PREMIUM, new StreamMark(3, T0.plusSeconds(30)));

        LicenseState suspended = LicenseRules.subscriptionSuspended(upgraded, SUBSCRIPTION, "BILLING_KEY_DELETED", new StreamMark(2, T0.plusSeconds(20)));
        assertThat(suspended.status()).isEqualTo(LicenseStatus.SUSPENDED);
        assertThat(suspended.plan()).isEqualTo(Plan.PREMIUM);

        LicenseState resumed = LicenseRules.subscriptionResumed(suspended, SUBSCRIPTION, new StreamMark(4, T0.plusSeconds(40)));
        assertThat(LicenseRules.subscriptionSuspended(resumed, SUBSCRIPTION, "BILLING_KEY_DELETED", new StreamMark(2, T0.plusSeconds(20))))
                .isEqualTo(resumed);
        assertThat(resumed.status()).isEqualTo(LicenseStatus.ACTIVE);
    }
}
