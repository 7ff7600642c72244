package dev.umbra.billing.subscription;

import static dev.umbra.billing.plan.PlanCatalogue.PREMIUM;
import static dev.umbra.billing.plan.PlanCatalogue.PRO;
import static dev.umbra.billing.subscription.SubscriptionTest.mark;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The stored renewal time is exactly when the renewal rules stop answering "not due". */
class RenewalDueAtTest {

    static final Instant START = Instant.parse("2026-01-31T10:00:00Z");
    static final DunningSettings DUNNING = new DunningSettings(Duration.ofHours(24), 4);

    @Test
    void dueExactlyWhenTheRulesSayADueStep() {
        Subscription active = started();
        Subscription pastDue = active.renewalFailed(1, 1, UUID.randomUUID(), active.renewalDueAt(), DUNNING).after();
        Subscription ending = active.cancelAtPeriodEnd(START.plusSeconds(60)).after();
        Subscription downgrading = Subscription.open(UUID.randomUUID(), "7", UUID.randomUUID(), UUID.randomUUID(), PREMIUM)
                .firstChargeSucceeded(START).after().downgrade(PRO, START.plusSeconds(60)).after();

        for (Subscription s : List.of(active, pastDue, ending, downgrading)) {
            Instant due = s.renewalDueAt();
            assertThat(s.renewalStep(due.minusMillis(1))).isInstanceOf(RenewalStep.NotDue.class);
            assertThat(s.renewalStep(due)).isNotInstanceOf(RenewalStep.NotDue.class);
        }
        assertThat(active.renewalDueAt()).isEqualTo(Instant.parse("2026-02-28T10:00:00Z"));
        assertThat(pastDue.renewalDueAt()).isEqualTo(Instant.parse("2026-03-01T10:00:00Z"));
    }

    @Test
    void nothingIsDueWhilePendingSuspendedOrCanceled() {
        Subscription pending = Subscription.open(UUID.randomUUID(), "7", UUID.randomUUID(), UUID.randomUUID(), PRO);
        Subscription suspended = started().suspend(SuspensionReason.BOT_KICKED, mark(START.plusSeconds(1))).after();
        Subscription canceled = started().cancelNow(START.plusSeconds(1)).after();

        assertThat(pending.renewalDueAt()).isNull();
        assertThat(suspended.renewalDueAt()).isNull();
        assertThat(canceled.renewalDueAt()).isNull();
    }

    private static Subscription started() {
        return Subscription.open(UUID.randomUUID(), "7", UUID.randomUUID(), UUID.randomUUID(), PRO).firstChargeSucceeded(START).after();
    }
}
