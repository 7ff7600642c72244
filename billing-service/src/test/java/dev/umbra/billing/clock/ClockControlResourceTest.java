package dev.umbra.billing.clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.umbra.billing.settings.BillingSettings;
import dev.umbra.platform.web.ProblemException;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The clock control exists only where configuration turns it on; the clock only moves forward. */
class ClockControlResourceTest {

    @Test
    void offUnlessConfiguredEveryCallIsA404AndTheClockStays() {
        MovableClock clock = new MovableClock();
        ClockControlResource control = new ClockControlResource(clock, settings(false));

        assertThatThrownBy(control::now).isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.status()).isEqualTo(404));
        assertThatThrownBy(() -> control.advance(new ClockControlResource.Advance(Duration.ofDays(30))))
                .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.status()).isEqualTo(404));
        assertThat(clock.instant()).isBefore(Instant.now().plus(Duration.ofDays(1)));
    }

    @Test
    void onItMovesTheClockForwardOnly() {
        MovableClock clock = new MovableClock();
        ClockControlResource control = new ClockControlResource(clock, settings(true));

        Instant moved = control.advance(new ClockControlResource.Advance(Duration.ofDays(30))).now();
        assertThat(moved).isAfter(Instant.now().plus(Duration.ofDays(29)));
        assertThat(clock.instant()).isAfterOrEqualTo(moved);
        assertThatThrownBy(() -> control.advance(new ClockControlResource.Advance(Duration.ofDays(-1))))
                .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.status()).isEqualTo(422));
    }

    private static BillingSettings settings(boolean clockControl) {
        return new BillingSettings() {
            @Override
            public Dunning dunning() {
                throw new UnsupportedOperationException();
            }

            @Override
            public Renewals renewals() {
                throw new UnsupportedOperationException();
            }

            @Override
            public ClockControl clockControl() {
                return () -> clockControl;
            }
        };
    }
}
