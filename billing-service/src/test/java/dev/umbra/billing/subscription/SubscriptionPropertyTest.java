package dev.umbra.billing.subscription;

import static dev.umbra.billing.subscription.SubscriptionTest.mark;
import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.billing.plan.Plan;
import dev.umbra.billing.plan.PlanCatalogue;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.billing.PaymentFailedFinal;
import dev.umbra.events.billing.PaymentSucceeded;
import dev.umbra.events.billing.SubscriptionCanceled;
import dev.umbra.events.billing.SubscriptionResumed;
import dev.umbra.events.billing.SubscriptionSuspended;
import dev.umbra.events.billing.SubscriptionStarted;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random sequences of renewals, charge outcomes (some delivered twice), cancels, plan changes,
 * suspensions and resumes over several subscriptions, with a clock that jumps ahead. After every step:
 * the move is in the transition table, repeating it changes nothing, no period is ever paid twice, and
 * paid periods follow each other without gaps (except across a suspension, whose periods are skipped).
 */
class SubscriptionPropertyTest {

    static final DunningSettings DUNNING = new DunningSettings(Duration.ofHours(24), 4);

    static final int OPERATIONS = 600;
    static final int SUBSCRIPTIONS = 6;

    /** A charge sent to the gateway and not resolved yet; {@code quote} is set for an upgrade. */
    record InFlight(UUID subscriptionId, int period, int attempt, String key, UpgradeQuote quote) {
    }

    final Map<UUID, Subscription> subscriptions = new LinkedHashMap<>();
    final Map<String, InFlight> inFlight = new LinkedHashMap<>();
    /** The gateway's record: keys it charged successfully, and successful charges per (subscription, period). */
    final Set<String> chargedKeys = new HashSet<>();
    final Map<String, Integer> periodCharges = new HashMap<>();
    final Map<String, Integer> paymentSucceededEvents = new HashMap<>();
    final Map<UUID, Period> lastPaid = new HashMap<>();
    final Set<UUID> suspendedSinceLastPayment = new HashSet<>();
    final Map<UUID, Instant> resumedAt = new HashMap<>();
    final Set<SubscriptionStatus> statusesSeen = EnumSet.noneOf(SubscriptionStatus.class);
    final Set<Trigger> triggersApplied = EnumSet.noneOf(Trigger.class);
    Random random;
    Instant now = Instant.parse("2026-11-01T00:00:00Z");

    @ParameterizedTest
    @ValueSource(longs = {1L, 7L, 42L, 2026L, 90210L})
    void invariantsHoldUnderRandomOperations(long seed) {
        random = new Random(seed);
        for (int op = 0; op < OPERATIONS; op++) {
            step();
        }
        assertThat(statusesSeen).as("seed %d reaches every status", seed).containsExactlyInAnyOrder(SubscriptionStatus.values());
        assertThat(triggersApplied).as("seed %d applies every trigger", seed).containsExactlyInAnyOrder(Trigger.values());
        assertThat(periodCharges.values()).as("seed %d: successful charges per (subscription, period)", seed).allMatch(n -> n == 1);
    }

    void step() {
        int choice = random.nextInt(100);
        if (choice < 10) {
            if (subscriptions.values().stream().filter(s -> s.status() != SubscriptionStatus.CANCELED).count() < SUBSCRIPTIONS) {
                open();
            }
        } else if (choice < 35) {
            resolveOneCharge();
        } else if (choice < 50) {
            runRenewals();
        } else if (choice < 62) {
            now = now.plus(Duration.ofHours(random.nextInt(24 * 12)));
        } else if (!subscriptions.isEmpty()) {
            Subscription s = pick();
            switch (random.nextInt(22)) {
                case 0 -> apply(s.id(), Trigger.CANCEL_NOW, x -> x.cancelNow(now));
                case 1 -> apply(s.id(), Trigger.GUILD_DELETED, x -> x.guildDeleted(now));
                case 2, 3 -> apply(s.id(), Trigger.CANCEL_AT_PERIOD_END, x -> x.cancelAtPeriodEnd(now));
                case 4, 5 -> {
                    SuspensionReason reason = reason();
                    apply(s.id(), Trigger.SUSPEND, x -> x.suspend(reason, mark(now)));
                }
                case 6, 7, 8, 9 -> {
                    SuspensionReason reason = s.suspensions().isEmpty() || random.nextInt(3) == 0 ? reason()
                            : List.copyOf(s.suspensions()).get(random.nextInt(s.suspensions().size()));
                    UUID newKey = reason == SuspensionReason.BILLING_KEY_DELETED ? UUID.randomUUID() : null;
                    apply(s.id(), Trigger.RESUME, x -> x.resume(reason, newKey, now));
                }
                case 10, 11, 12, 13, 14 -> requestUpgrade(s);
                case 20, 21 -> {
                    UUID newKey = random.nextInt(4) == 0 ? s.billingKeyId() : UUID.randomUUID();
                    apply(s.id(), Trigger.PAY_WITH, x -> x.payWith(newKey, now));
                }
                default -> {
                    Plan to = random.nextInt(3) > 0 ? PlanCatalogue.PRO : plan();
                    apply(s.id(), Trigger.DOWNGRADE, x -> x.downgrade(to, now));
                }
            }
        }
    }

    void open() {
        Plan plan = random.nextInt(3) > 0 ? PlanCatalogue.PRO : PlanCatalogue.PREMIUM;
        Subscription s = Subscription.open(UUID.randomUUID(), "guild-" + random.nextInt(3), UUID.randomUUID(), UUID.randomUUID(), plan);
        subscriptions.put(s.id(), s);
        statusesSeen.add(s.status());
        send(s.firstCharge(), null);
    }

    void runRenewals() {
        // Two replicas of the job see the same subscriptions; the second finds the charge already in flight.
        for (int replica = 0; replica < 2; replica++) {
            for (Subscription s : List.copyOf(subscriptions.values())) {
                RenewalStep step = subscriptions.get(s.id()).renewalStep(now);
                if (step instanceof RenewalStep.Charge charge) {
                    send(charge, null);
                } else if (step instanceof RenewalStep.Expire) {
                    apply(s.id(), Trigger.PERIOD_ENDED, x -> x.periodEnded(now));
                }
            }
        }
    }

    void requestUpgrade(Subscription s) {
        try {
            UpgradeQuote quote = s.quoteUpgrade(random.nextInt(3) > 0 ? PlanCatalogue.PREMIUM : plan(), now);
            assertThat(quote.amount()).isBetween(0L, PlanCatalogue.PREMIUM.monthlyPrice());
            send(new RenewalStep.Charge(s.id(), quote.period(), 1, quote.toPlan(), quote.amount(), quote.idempotencyKey()), quote);
        } catch (IllegalTransitionException | PlanChangeRejectedException refused) {
            // a request the rules refuse changes nothing
        }
    }

    /** The payment table's unique constraint: one attempt in flight per idempotency key. */
    void send(RenewalStep.Charge charge, UpgradeQuote quote) {
        Subscription s = subscriptions.get(charge.subscriptionId());
        if (quote == null) {
            assertThat(charge.period()).as("a charge is never asked for a paid period").isGreaterThan(s.paidThrough());
            Instant resumed = resumedAt.get(s.id());
            if (resumed != null && charge.period() > 0) {
                assertThat(s.cycle().period(charge.period()).end()).as("a period that ended while suspended is never charged")
                        .isAfter(resumed);
            }
        }
        inFlight.putIfAbsent(charge.idempotencyKey(), new InFlight(charge.subscriptionId(), charge.period(), charge.attempt(),
                charge.idempotencyKey(), quote));
    }

    void resolveOneCharge() {
        if (inFlight.isEmpty()) {
            return;
        }
        List<String> keys = new ArrayList<>(inFlight.keySet());
        InFlight charge = inFlight.remove(keys.get(random.nextInt(keys.size())));
        boolean succeeded = random.nextInt(100) < 55;
        if (succeeded && chargedKeys.add(charge.key())) {
            String paidFor = charge.quote() != null ? charge.key() : charge.subscriptionId() + "#" + charge.period();
            periodCharges.merge(paidFor, 1, Integer::sum);
        }
        UUID attemptId = UUID.randomUUID();
        UUID id = charge.subscriptionId();
        int deliveries = random.nextInt(4) == 0 ? 2 : 1; // the callback and the reconciliation job both report it
        for (int i = 0; i < deliveries; i++) {
            try {
                if (charge.quote() != null) {
                    if (succeeded) {
                        apply(id, Trigger.UPGRADE_CHARGED, x -> x.upgradeCharged(charge.quote(), now));
                    }
                } else if (charge.period() == 0 && !subscriptions.get(id).started()) {
                    apply(id, succeeded ? Trigger.FIRST_CHARGE_SUCCEEDED : Trigger.FIRST_CHARGE_FAILED,
                            succeeded ? x -> x.firstChargeSucceeded(now) : x -> x.firstChargeFailed(now));
                } else if (succeeded) {
                    apply(id, Trigger.RENEWAL_SUCCEEDED, x -> x.renewalSucceeded(charge.period(), attemptId, now));
                } else {
                    apply(id, Trigger.RENEWAL_FAILED, x -> x.renewalFailed(charge.period(), charge.attempt(), attemptId, now, DUNNING));
                }
            } catch (IllegalTransitionException lateCharge) {
                // money taken for a subscription that cannot use it any more: the service refunds it
                assertThat(succeeded).as("only a success is ever refused: " + lateCharge.getMessage()).isTrue();
            }
        }
    }

    void apply(UUID id, Trigger trigger, Function<Subscription, Transition> rule) {
        Subscription before = subscriptions.get(id);
        Transition t;
        try {
            t = rule.apply(before);
        } catch (PlanChangeRejectedException refused) {
            return;
        } catch (IllegalTransitionException refused) {
            assertThat(refused.trigger()).isEqualTo(trigger);
            assertThat(refused.status()).isEqualTo(before.status());
            if (trigger == Trigger.FIRST_CHARGE_SUCCEEDED || trigger == Trigger.RENEWAL_SUCCEEDED || trigger == Trigger.UPGRADE_CHARGED) {
                throw refused;
            }
            return;
        }
        Transition again = rule.apply(t.after());
        assertThat(again.changed()).as("%s applied twice", trigger).isFalse();
        assertThat(again.events()).isEmpty();
        if (!t.changed()) {
            assertThat(t.events()).isEmpty();
            return;
        }
        Subscription after = t.after();
        assertThat(TransitionTable.allows(trigger, before.status(), after.status()))
                .as("%s: %s -> %s", trigger, before.status(), after.status()).isTrue();
        assertThat(before.status() == SubscriptionStatus.CANCELED).as("a canceled subscription never changes").isFalse();
        checkInvariants(after);
        checkEvents(before, after, t.events());
        subscriptions.put(id, after);
        statusesSeen.add(after.status());
        triggersApplied.add(trigger);
        if (after.status() == SubscriptionStatus.SUSPENDED) {
            suspendedSinceLastPayment.add(id);
        } else if (before.status() == SubscriptionStatus.SUSPENDED && (trigger == Trigger.RESUME || trigger == Trigger.PAY_WITH)) {
            resumedAt.put(id, now);
        }
    }

    void checkInvariants(Subscription s) {
        assertThat(s.status() != SubscriptionStatus.SUSPENDED || !s.suspensions().isEmpty()).as("suspended for a reason").isTrue();
        assertThat(s.suspensions().isEmpty() || s.status() == SubscriptionStatus.SUSPENDED || s.status() == SubscriptionStatus.PENDING)
                .as("reasons only while suspended, or recorded while the first charge is pending").isTrue();
        assertThat(s.botKicked() != null).as("a kick's time exactly while suspended for it").isEqualTo(s.suspensions().contains(SuspensionReason.BOT_KICKED));
        assertThat(s.status() != SubscriptionStatus.PAST_DUE || s.failedAttempts() > 0 && s.nextAttemptAt() != null).isTrue();
        assertThat(s.status() != SubscriptionStatus.CANCELED || s.canceledAt() != null).isTrue();
        assertThat(s.started()).isEqualTo(s.paidThrough() >= 0);
        assertThat(s.duePeriod()).isGreaterThan(s.paidThrough());
        assertThat(s.failedAttempts()).isLessThanOrEqualTo(DUNNING.maxFailures());
        if (s.started()) {
            assertThat(s.cycle().period(s.paidThrough()).end()).isEqualTo(s.cycle().period(s.paidThrough() + 1).start());
        }
    }

    void checkEvents(Subscription before, Subscription after, List<DomainEvent> events) {
        boolean runsAgain = before.status() == SubscriptionStatus.SUSPENDED && after.status() != SubscriptionStatus.SUSPENDED
                && after.status() != SubscriptionStatus.CANCELED;
        assertThat(events.stream().filter(SubscriptionResumed.class::isInstance).count())
                .as("SubscriptionResumed exactly when a suspended subscription runs again").isEqualTo(runsAgain ? 1L : 0L);
        boolean stopsRunning = before.status() != SubscriptionStatus.SUSPENDED && after.status() == SubscriptionStatus.SUSPENDED;
        assertThat(events.stream().filter(SubscriptionSuspended.class::isInstance).count())
                .as("SubscriptionSuspended exactly when a subscription stops running").isEqualTo(stopsRunning ? 1L : 0L);
        boolean announcedEnd = before.started() && before.status() != SubscriptionStatus.CANCELED
                && after.status() == SubscriptionStatus.CANCELED;
        assertThat(events.stream().filter(e -> e instanceof SubscriptionCanceled canceled && !canceled.cancelAtPeriodEnd()
                        || e instanceof PaymentFailedFinal).count())
                .as("an end (SubscriptionCanceled now or PaymentFailedFinal) exactly when a started subscription is canceled")
                .isEqualTo(announcedEnd ? 1L : 0L);
        for (DomainEvent event : events) {
            if (event instanceof SubscriptionStarted started) {
                assertThat(before.started()).isFalse();
                assertThat(started.periodEnd()).isEqualTo(after.paidPeriod().end());
                lastPaid.put(after.id(), after.paidPeriod());
            }
            if (event instanceof PaymentSucceeded paid) {
                Period period = after.paidPeriod();
                assertThat(paid.newPeriodEnd()).isEqualTo(period.end());
                assertThat(paymentSucceededEvents.merge(after.id() + "#" + period.number(), 1, Integer::sum))
                        .as("PaymentSucceeded for one period").isEqualTo(1);
                Period previous = lastPaid.get(after.id());
                if (suspendedSinceLastPayment.contains(after.id()) || before.status() == SubscriptionStatus.SUSPENDED) {
                    assertThat(period.start()).isAfterOrEqualTo(previous.end());
                } else {
                    assertThat(period.start()).as("contiguous periods").isEqualTo(previous.end());
                    assertThat(period.number()).isEqualTo(previous.number() + 1);
                }
                lastPaid.put(after.id(), period);
                suspendedSinceLastPayment.remove(after.id());
            }
        }
    }

    /** Mostly a running subscription: canceled ones pile up and only show that nothing moves them. */
    Subscription pick() {
        List<Subscription> all = new ArrayList<>(subscriptions.values());
        List<Subscription> running = all.stream().filter(s -> s.status() != SubscriptionStatus.CANCELED).toList();
        if (!running.isEmpty() && random.nextInt(5) > 0) {
            return running.get(random.nextInt(running.size()));
        }
        return all.get(random.nextInt(all.size()));
    }

    Plan plan() {
        return PlanCatalogue.all().get(random.nextInt(PlanCatalogue.all().size()));
    }

    SuspensionReason reason() {
        return SuspensionReason.values()[random.nextInt(SuspensionReason.values().length)];
    }

}
