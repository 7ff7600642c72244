package dev.umbra.billing.subscription;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class BillingCycleTest {

    @Test
    void periodsAreCalendarMonthsFromTheAnchorAndContiguous() {
        BillingCycle cycle = new BillingCycle(Instant.parse("2026-01-15T10:00:00Z"));
        assertThat(cycle.period(0)).isEqualTo(new Period(0, Instant.parse("2026-01-15T10:00:00Z"), Instant.parse("2026-02-15T10:00:00Z")));
        for (int n = 0; n < 24; n++) {
            assertThat(cycle.period(n).end()).isEqualTo(cycle.period(n + 1).start());
        }
    }

    @Test
    void anAnchorOnThe31stDoesNotDriftAfterAShortMonth() {
        BillingCycle cycle = new BillingCycle(Instant.parse("2026-01-31T00:00:00Z"));
        assertThat(cycle.period(1).start()).isEqualTo(Instant.parse("2026-02-28T00:00:00Z"));
        assertThat(cycle.period(2).start()).isEqualTo(Instant.parse("2026-03-31T00:00:00Z"));
    }

    @Test
    void findsThePeriodContainingAnInstant() {
        BillingCycle cycle = new BillingCycle(Instant.parse("2026-01-31T00:00:00Z"));
        assertThat(cycle.periodAt(Instant.parse("2026-01-31T00:00:00Z")).number()).isZero();
        assertThat(cycle.periodAt(Instant.parse("2026-02-27T23:59:59Z")).number()).isZero();
        assertThat(cycle.periodAt(Instant.parse("2026-02-28T00:00:00Z")).number()).isEqualTo(1);
        assertThat(cycle.periodAt(Instant.parse("2026-07-15T00:00:00Z")).number()).isEqualTo(5);
        assertThat(cycle.periodAt(Instant.parse("2025-12-01T00:00:00Z")).number()).isZero();
    }
}
