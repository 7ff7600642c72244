package dev.umbra.billing.subscription;

import static dev.umbra.billing.plan.PlanCatalogue.PRO;
import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.billing.PaymentFailed;
import dev.umbra.events.billing.PaymentFailedFinal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Flow 2: the renewal and three retries fail; the fourth failure ends the subscription. */
class DunningTest {

    static final UUID ID = UUID.fromString("00000000-0000-0000-0000-0000000000d1");
    static final Instant START = Instant.parse("2026-11-01T09:00:00Z");
    static final Instant PERIOD_END = Instant.parse("2026-12-01T09:00:00Z");

    /** A clock the test moves. */
    static final class MovableClock extends Clock {
        private Instant now;

        MovableClock(Instant now) {
            this.now = now;
        }

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            throw new UnsupportedOperationException();
        }
    }

    @Test
    void fourFailuresOneIntervalApartEndInPaymentFailedFinal() {
        DunningSettings dunning = new DunningSettings(Duration.ofHours(24), 4);
        MovableClock clock = new MovableClock(START);
        Subscription s = Subscription.open(ID, "42", UUID.randomUUID(), UUID.randomUUID(), PRO).firstChargeSucceeded(clock.instant()).after();
        List<DomainEvent> events = new ArrayList<>();
        List<UUID> attempts = new ArrayList<>();
        List<Instant> triedAt = new ArrayList<>();

        clock.advance(Duration.between(START, PERIOD_END));
        for (int hour = 0; hour < 24 * 10; hour++) {
            if (s.renewalStep(clock.instant()) instanceof RenewalStep.Charge charge) {
                assertThat(charge.period()).isEqualTo(1);
                // a decline is a gateway's answer to its key for good: each retry is an attempt with a key of its own
                assertThat(charge.idempotencyKey()).isEqualTo(ChargeKeys.periodCharge(ID, 1, attempts.size() + 1));
                UUID attempt = UUID.randomUUID();
                attempts.add(attempt);
                triedAt.add(clock.instant());
                Transition t = s.renewalFailed(charge.period(), charge.attempt(), attempt, clock.instant(), dunning);
                events.addAll(t.events());
                s = t.after();
            }
            clock.advance(Duration.ofHours(1));
        }

        assertThat(triedAt).containsExactly(PERIOD_END, PERIOD_END.plus(Duration.ofHours(24)),
                PERIOD_END.plus(Duration.ofHours(48)), PERIOD_END.plus(Duration.ofHours(72)));
        assertThat(events).containsExactly(
                new PaymentFailed(ID, attempts.get(0), 1),
                new PaymentFailed(ID, attempts.get(1), 2),
                new PaymentFailed(ID, attempts.get(2), 3),
                new PaymentFailedFinal(ID));
        assertThat(s.status()).isEqualTo(SubscriptionStatus.CANCELED);
        assertThat(s.canceledAt()).isEqualTo(PERIOD_END.plus(Duration.ofHours(72)));
    }

    @Test
    void countsAndIntervalsAreSettings() {
        DunningSettings dunning = new DunningSettings(Duration.ofMinutes(5), 2);
        Subscription s = Subscription.open(ID, "42", UUID.randomUUID(), UUID.randomUUID(), PRO).firstChargeSucceeded(START).after();
        s = s.renewalFailed(1, 1, UUID.randomUUID(), PERIOD_END, dunning).after();
        assertThat(s.nextAttemptAt()).isEqualTo(PERIOD_END.plus(Duration.ofMinutes(5)));
        Transition second = s.renewalFailed(1, 2, UUID.randomUUID(), PERIOD_END.plus(Duration.ofMinutes(5)), dunning);
        assertThat(second.events()).containsExactly(new PaymentFailedFinal(ID));
        assertThat(second.after().status()).isEqualTo(SubscriptionStatus.CANCELED);
    }

    @Test
    void settingsAreChecked() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new DunningSettings(Duration.ZERO, 4))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new DunningSettings(Duration.ofHours(1), 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
