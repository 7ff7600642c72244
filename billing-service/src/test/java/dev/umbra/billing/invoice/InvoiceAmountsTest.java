package dev.umbra.billing.invoice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class InvoiceAmountsTest {

    @Test
    void partialRefundsUpToWhatWasPaidThenNothingMore() {
        InvoiceAmounts paid = InvoiceAmounts.paid(9_900);
        assertThat(paid.status()).isEqualTo(InvoiceStatus.PAID);

        InvoiceAmounts first = paid.reserve(4_000).refundSucceeded(4_000);
        assertThat(first.status()).isEqualTo(InvoiceStatus.PARTIALLY_REFUNDED);
        assertThat(first.refundable()).isEqualTo(5_900);

        InvoiceAmounts all = first.reserve(5_900).refundSucceeded(5_900);
        assertThat(all.status()).isEqualTo(InvoiceStatus.REFUNDED);
        assertThat(all.refunded()).isEqualTo(9_900);
        assertThatThrownBy(() -> all.reserve(1)).isInstanceOf(RefundRejectedException.class).hasMessageContaining("only 0 of 9900");
    }

    @Test
    void aRefundInFlightHoldsItsAmountAndAFailedOneGivesItBack() {
        InvoiceAmounts inFlight = InvoiceAmounts.paid(9_900).reserve(9_000);
        assertThat(inFlight.status()).isEqualTo(InvoiceStatus.PAID);
        assertThatThrownBy(() -> inFlight.reserve(1_000)).isInstanceOf(RefundRejectedException.class).hasMessageContaining("under way");

        InvoiceAmounts failed = inFlight.refundAbandoned(9_000);
        assertThat(failed).isEqualTo(InvoiceAmounts.paid(9_900));
        assertThat(failed.reserve(9_900).refundSucceeded(9_900).status()).isEqualTo(InvoiceStatus.REFUNDED);
    }

    @Test
    void nothingOrLessThanNothingIsNoRefund() {
        InvoiceAmounts paid = InvoiceAmounts.paid(9_900);
        assertThatThrownBy(() -> paid.reserve(0)).isInstanceOf(RefundRejectedException.class);
        assertThatThrownBy(() -> paid.reserve(-100)).isInstanceOf(RefundRejectedException.class);
        assertThatThrownBy(() -> paid.reserve(9_901)).isInstanceOf(RefundRejectedException.class);
    }

    @Test
    void whateverTheOrderOfRequestsAndOutcomesTheRefundsNeverExceedThePayment() {
        Random random = new Random(11);
        for (int run = 0; run < 300; run++) {
            long total = 1 + random.nextInt(50_000);
            InvoiceAmounts amounts = InvoiceAmounts.paid(total);
            List<Long> inFlight = new ArrayList<>();
            long succeeded = 0;
            for (int step = 0; step < 20; step++) {
                if (!inFlight.isEmpty() && random.nextBoolean()) {
                    long amount = inFlight.remove(random.nextInt(inFlight.size()));
                    if (random.nextBoolean()) {
                        amounts = amounts.refundSucceeded(amount);
                        succeeded += amount;
                    } else {
                        amounts = amounts.refundAbandoned(amount);
                    }
                    continue;
                }
                long asked = random.nextInt((int) total + 1) - random.nextInt(3);
                try {
                    amounts = amounts.reserve(asked);
                    inFlight.add(asked);
                } catch (RefundRejectedException refused) {
                    assertThat(asked <= 0 || asked > amounts.refundable()).isTrue();
                }
                assertThat(amounts.reserved()).isLessThanOrEqualTo(total);
            }
            assertThat(amounts.refunded()).isEqualTo(succeeded).isLessThanOrEqualTo(total);
        }
    }

    @Test
    void anInvoiceTotalsItsLinesAndMustSayWhatWasPaid() {
        UUID payment = UUID.randomUUID();
        InvoiceContent content = new InvoiceContent(payment, UUID.randomUUID(), UUID.randomUUID(), Instant.parse("2026-11-01T00:00:00Z"),
                Instant.parse("2026-12-01T00:00:00Z"), List.of(new InvoiceLine("Pro plan", 9_900), new InvoiceLine("Extra", 100)), "KRW");

        assertThat(content.total()).isEqualTo(10_000);
        assertThat(content.requirePaid(10_000)).isSameAs(content);
        assertThatThrownBy(() -> content.requirePaid(9_900)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("total 10000");
        assertThatThrownBy(() -> new InvoiceLine("nothing", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new InvoiceContent(payment, UUID.randomUUID(), UUID.randomUUID(), Instant.parse("2026-11-01T00:00:00Z"),
                Instant.parse("2026-11-01T00:00:00Z"), List.of(new InvoiceLine("Pro plan", 9_900)), "KRW"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
