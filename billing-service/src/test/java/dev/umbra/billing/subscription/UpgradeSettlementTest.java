package dev.umbra.billing.subscription;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.umbra.billing.payment.Payment;
import dev.umbra.billing.plan.PlanCatalogue;
import dev.umbra.events.billing.PlanUpgraded;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A successful upgrade payment is judged against the quote it was charged for: the plan the subscription
 * was on when it was quoted, as its payment row recorded it, not the subscription's plan when the charge
 * settles. The catalogue's three plans offer one upgrade (PRO → PREMIUM), so a quote from FREE stands here
 * for any plan other than the subscription's (another upgrade applied while this one was in flight, once
 * the catalogue has more than one step up).
 */
class UpgradeSettlementTest {

    private static final Instant START = Instant.parse("2026-11-01T10:00:00Z");
    private static final Instant QUOTED_AT = Instant.parse("2026-11-21T10:00:00Z");

    private final Subscription active = Subscription.open(UUID.randomUUID(), "123456789012345678", UUID.randomUUID(), UUID.randomUUID(),
            PlanCatalogue.PRO).firstChargeSucceeded(START).after();

    @Test
    void anUpgradeQuotedForAnotherPlanThanTheSubscriptionsIsRefused() {
        // priced as FREE → PREMIUM, settled on a PRO subscription: the amount is not PRO → PREMIUM's
        Payment payment = upgradePaid("FREE", "PREMIUM", 13_266);

        assertThatThrownBy(() -> SubscriptionPayments.success(payment, active, QUOTED_AT.plusSeconds(2)))
                .isInstanceOf(IllegalTransitionException.class)
                .hasMessageContaining("the quote was for FREE in period 0");
    }

    @Test
    void anUpgradeQuotedForTheSubscriptionsPlanUpgradesIt() {
        UpgradeQuote quote = active.quoteUpgrade(PlanCatalogue.PREMIUM, QUOTED_AT);
        Payment payment = upgradePaid(quote.fromPlan(), quote.toPlan(), quote.amount());

        Transition transition = SubscriptionPayments.success(payment, active, QUOTED_AT.plusSeconds(2));

        assertThat(transition.after().planCode()).isEqualTo("PREMIUM");
        assertThat(transition.events()).singleElement().isEqualTo(new PlanUpgraded(active.id(), "PRO", "PREMIUM"));
    }

    @Test
    void theQuoteIsRebuiltAsItWasCharged() {
        UpgradeQuote quote = active.quoteUpgrade(PlanCatalogue.PREMIUM, QUOTED_AT).attempt(2);
        Payment payment = Payment.attempt(active.id(), quote.period(), SubscriptionPayments.upgradePurpose(quote.toPlan()),
                quote.idempotencyKey(), quote.amount(), QUOTED_AT);
        payment.quotedFromPlan = quote.fromPlan();
        // the subscription moved on since (here: upgraded by another attempt): the quote stays what was charged
        Subscription since = active.upgradeCharged(active.quoteUpgrade(PlanCatalogue.PREMIUM, QUOTED_AT), QUOTED_AT).after();

        assertThat(SubscriptionPayments.quoteOf(payment, since)).isEqualTo(quote);
        assertThat(SubscriptionPayments.quoteOf(payment, active)).isEqualTo(quote);
    }

    @Test
    void anUpgradeStoredWithoutItsQuotedPlanIsJudgedOnTheSubscriptionsPlan() {
        // stored by a replica that did not record the plan yet (a rolling deploy): as before, the subscription's plan
        Payment payment = upgradePaid(null, "PREMIUM", 3_333);

        assertThat(SubscriptionPayments.success(payment, active, QUOTED_AT.plusSeconds(2)).after().planCode()).isEqualTo("PREMIUM");
    }

    private Payment upgradePaid(String fromPlan, String toPlan, long amount) {
        Payment payment = Payment.attempt(active.id(), 0, SubscriptionPayments.upgradePurpose(toPlan),
                ChargeKeys.upgradeCharge(active.id(), 0, toPlan, 1), amount, QUOTED_AT);
        payment.quotedFromPlan = fromPlan;
        payment.succeed("pay_" + payment.id, amount, QUOTED_AT.plusSeconds(1));
        return payment;
    }
}
