package dev.umbra.billing.subscription;

import static dev.umbra.billing.plan.PlanCatalogue.FREE;
import static dev.umbra.billing.plan.PlanCatalogue.PREMIUM;
import static dev.umbra.billing.plan.PlanCatalogue.PRO;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ProrationTest {

    /** November: 30 days. */
    static final Period NOVEMBER = new Period(0, Instant.parse("2026-11-01T00:00:00Z"), Instant.parse("2026-12-01T00:00:00Z"));

    @Test
    void chargesThePriceDifferenceForTheDaysLeftRoundedDownToWholeWon() {
        // 10 days left of 30: 10,000 × 10 / 30 = 3,333.33… → 3,333
        assertThat(Proration.upgradeAmount(PRO, PREMIUM, NOVEMBER, Instant.parse("2026-11-21T00:00:00Z"))).isEqualTo(3_333);
    }

    @Test
    void aStartedDayCountsAsAWholeDay() {
        // 10 days and one hour left → 11 days: 10,000 × 11 / 30 = 3,666.66… → 3,666
        assertThat(Proration.upgradeAmount(PRO, PREMIUM, NOVEMBER, Instant.parse("2026-11-20T23:00:00Z"))).isEqualTo(3_666);
        // one second left → one day: 10,000 / 30 = 333.33… → 333
        assertThat(Proration.upgradeAmount(PRO, PREMIUM, NOVEMBER, NOVEMBER.end().minusSeconds(1))).isEqualTo(333);
    }

    @Test
    void theWholePeriodCostsTheWholeDifference() {
        assertThat(Proration.upgradeAmount(PRO, PREMIUM, NOVEMBER, NOVEMBER.start())).isEqualTo(10_000);
        assertThat(Proration.upgradeAmount(FREE, PREMIUM, NOVEMBER, NOVEMBER.start())).isEqualTo(19_900);
    }

    @Test
    void dividesByTheLengthOfThePeriodItself() {
        Period february = new Period(3, Instant.parse("2027-02-01T00:00:00Z"), Instant.parse("2027-03-01T00:00:00Z"));
        // 14 of 28 days: exactly half
        assertThat(Proration.upgradeAmount(PRO, PREMIUM, february, february.start().plus(Duration.ofDays(14)))).isEqualTo(5_000);
    }

    @Test
    void onlyAnUpgradeInsideThePeriodIsPriced() {
        assertThatThrownBy(() -> Proration.upgradeAmount(PREMIUM, PRO, NOVEMBER, NOVEMBER.start()))
                .isInstanceOf(PlanChangeRejectedException.class);
        assertThatThrownBy(() -> Proration.upgradeAmount(PRO, PRO, NOVEMBER, NOVEMBER.start()))
                .isInstanceOf(PlanChangeRejectedException.class);
        assertThatThrownBy(() -> Proration.upgradeAmount(PRO, PREMIUM, NOVEMBER, NOVEMBER.end()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
