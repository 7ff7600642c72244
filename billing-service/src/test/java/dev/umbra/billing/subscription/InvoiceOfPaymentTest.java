package dev.umbra.billing.subscription;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.billing.invoice.InvoiceContent;
import dev.umbra.billing.payment.Payment;
import dev.umbra.billing.plan.PlanCatalogue;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** What the invoice of a successful payment says it paid for: the period of a first charge or renewal, the rest of the period for an upgrade. */
class InvoiceOfPaymentTest {

    private static final Instant START = Instant.parse("2026-11-01T10:00:00Z");

    private final Subscription pending = Subscription.open(UUID.randomUUID(), "123456789012345678", UUID.randomUUID(), UUID.randomUUID(),
            PlanCatalogue.PRO);
    private final Subscription active = pending.firstChargeSucceeded(START).after();

    @Test
    void aFirstChargePaysPeriodZeroFromTheMomentItSucceeded() {
        Payment payment = paid(0, Payment.PERIOD, 9_900, START);

        InvoiceContent invoice = SubscriptionPayments.invoiceOf(payment, pending, active, START);

        assertThat(invoice.periodStart()).isEqualTo(START);
        assertThat(invoice.periodEnd()).isEqualTo(Instant.parse("2026-12-01T10:00:00Z"));
        assertThat(invoice.total()).isEqualTo(9_900);
        assertThat(invoice.currency()).isEqualTo("KRW");
        assertThat(invoice.lines()).singleElement().satisfies(line -> assertThat(line.description()).isEqualTo("Pro plan, period 0"));
    }

    @Test
    void aRenewalPaysItsPeriodAtThePlanCharged() {
        Instant renewedAt = Instant.parse("2026-12-01T10:00:05Z");
        Payment payment = paid(1, Payment.PERIOD, 9_900, renewedAt);
        Subscription renewed = active.renewalSucceeded(1, payment.id, renewedAt).after();

        InvoiceContent invoice = SubscriptionPayments.invoiceOf(payment, active, renewed, renewedAt);

        assertThat(invoice.periodStart()).isEqualTo(Instant.parse("2026-12-01T10:00:00Z"));
        assertThat(invoice.periodEnd()).isEqualTo(Instant.parse("2027-01-01T10:00:00Z"));
        assertThat(invoice.subscriptionId()).isEqualTo(active.id());
        assertThat(invoice.userId()).isEqualTo(active.userId());
    }

    @Test
    void anUpgradePaysTheRestOfThePaidPeriodFromItsAttempt() {
        Instant upgradedAt = Instant.parse("2026-11-21T10:00:00Z");
        UpgradeQuote quote = active.quoteUpgrade(PlanCatalogue.PREMIUM, upgradedAt);
        Payment payment = paid(0, SubscriptionPayments.upgradePurpose("PREMIUM"), quote.amount(), upgradedAt);

        InvoiceContent invoice = SubscriptionPayments.invoiceOf(payment, active, active.upgradeCharged(quote, upgradedAt.plusSeconds(2)).after(),
                upgradedAt.plusSeconds(2));

        assertThat(invoice.periodStart()).isEqualTo(upgradedAt);
        assertThat(invoice.periodEnd()).isEqualTo(Instant.parse("2026-12-01T10:00:00Z"));
        assertThat(invoice.total()).isEqualTo(quote.amount());
        assertThat(invoice.lines().get(0).description()).startsWith("Upgrade to Premium");
    }

    private Payment paid(int period, String purpose, long amount, Instant at) {
        Payment payment = Payment.attempt(pending.id(), period, purpose, "key", amount, at);
        payment.succeed("pay_" + payment.id, amount, at);
        return payment;
    }
}
