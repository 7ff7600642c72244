package dev.umbra.e2e;

import static dev.umbra.e2e.SystemClient.TIMEOUT;
import static dev.umbra.e2e.SystemClient.eventTypes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.e2e.SystemClient.Subscribed;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.testing.Tokens;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The subscription flows across the packaged services, driven only as an operator or a client
 * would: their HTTP APIs, Kafka, the sandboxes, and billing's test clock. Each flow checks every
 * service it crosses: billing's subscription, licensing's entitlements, what the gateway charged,
 * the events on the topics and what the guild's owner was told on Discord.
 */
class SubscriptionFlowsIT {

    private static final String PAYMENT_FAILED = "A payment for your subscription failed";

    private final SystemClient umbra = new SystemClient();

    @AfterAll
    static void logsAreClean() {
        RunningSystem.assertCleanLogs();
    }

    @BeforeEach
    void healthyGateway() {
        umbra.gateway().recover();
    }

    @Test
    void flowOneTheFirstSubscriptionMakesTheGuildProChargedOnceAndTheOwnerHearsOfIt() {
        Subscribed paid = umbra.subscribedToPro();

        await().atMost(TIMEOUT).untilAsserted(() -> umbra.entitlements(paid.guildId())
                .body("entitledPlan", equalTo("PRO")).body("status", equalTo("ACTIVE")));
        await().atMost(TIMEOUT).until(() -> umbra.toldTo(paid.owner()).contains("Your PRO subscription is active. Thank you!"));

        // every consumer has caught up with everything published by now: a second SubscriptionStarted would be on the topic
        SystemClient.awaitAllConsumed();
        List<PaymentGatewaySandbox.Charge> charges = umbra.chargesOf(paid.subscription());
        assertThat(charges).singleElement().satisfies(charge -> assertThat(charge.amount()).isEqualTo(9_900));
        assertThat(eventTypes(Topics.of(Aggregates.SUBSCRIPTION), paid.subscription().toString(), "SubscriptionStarted"))
                .containsExactly("SubscriptionStarted");
        SystemClient.awaitMessagesSent();
        assertThat(umbra.toldTo(paid.owner())).containsOnlyOnce("Your PRO subscription is active. Thank you!");

        // the token the owner paid with also reads their guild's license: one identity across the services
        umbra.licenseAs(Tokens.person(paid.user().toString(), paid.owner()), paid.guildId()).statusCode(200).body("plan", equalTo("PRO"));
    }

    @Test
    void flowTwoDunningCancelsAfterTheFourthDeclinedRenewalAndTheGuildFallsBackToFree() {
        Subscribed paid = umbra.subscribedToPro();
        await().atMost(TIMEOUT).untilAsserted(() -> umbra.entitlements(paid.guildId()).body("entitledPlan", equalTo("PRO")));
        umbra.gateway().declineCustomer(paid.user().toString());

        umbra.advanceBillingClockOnceChargesArrived(Duration.ofDays(32));
        for (int failure = 1; failure <= 4; failure++) {
            if (failure > 1) {
                umbra.advanceBillingClockOnceChargesArrived(Duration.ofHours(24));
            }
            int failures = failure;
            await().atMost(TIMEOUT).until(() -> declinedRenewals(paid) == failures);
            if (failure < 4) {
                await().atMost(TIMEOUT).untilAsserted(() -> umbra.subscription(paid).body("status", equalTo("PAST_DUE")));
                await().atMost(TIMEOUT).until(() -> umbra.toldTo(paid.owner()).stream().filter(m -> m.startsWith(PAYMENT_FAILED)).count()
                        == failures);
            }
        }

        await().atMost(TIMEOUT).untilAsserted(() -> umbra.subscription(paid).body("status", equalTo("CANCELED")));
        await().atMost(TIMEOUT).untilAsserted(() -> umbra.entitlements(paid.guildId()).body("entitledPlan", equalTo("FREE")));
        await().atMost(TIMEOUT).until(() -> umbra.toldTo(paid.owner())
                .contains("We could not collect your subscription's payment; the subscription is canceled."));
        assertThat(umbra.chargesOf(paid.subscription())).as("the first charge and four declined renewals, nothing more")
                .hasSize(5).filteredOn(charge -> charge.status() == PaymentGatewaySandbox.Status.DONE).hasSize(1);
        assertThat(eventTypes(Topics.of(Aggregates.SUBSCRIPTION), paid.subscription().toString(), "PaymentFailedFinal"))
                .containsExactly("SubscriptionStarted", "PaymentFailed", "PaymentFailed", "PaymentFailed", "PaymentFailedFinal");
        // licensing and guild's notifications applied the subscription's events in its order; guild, recovery and audit the license's
        SystemClient.assertAppliedInOrder(Aggregates.SUBSCRIPTION, paid.subscription().toString());
        SystemClient.assertAppliedInOrder(Aggregates.LICENSE, umbra.license(paid.guildId()).extract().path("licenseId"));
    }

    @Test
    void flowThreeAKickSuspendsTheSubscriptionItsEchoChangesNothingMoreAndTheBotsReturnResumesIt() {
        Subscribed paid = umbra.subscribedToPro();
        await().atMost(TIMEOUT).untilAsserted(() -> umbra.entitlements(paid.guildId()).body("entitledPlan", equalTo("PRO")));
        String licenseId = umbra.license(paid.guildId()).extract().path("licenseId");

        umbra.kick(paid.guildId());

        // BotKicked suspends the license at once; billing's SubscriptionSuspended, caused by the same
        // kick, reaches licensing afterwards: the echo finds the license suspended and changes nothing
        await().atMost(TIMEOUT).untilAsserted(() -> umbra.subscription(paid).body("status", equalTo("SUSPENDED")));
        eventTypes(Topics.of(Aggregates.SUBSCRIPTION), paid.subscription().toString(), "SubscriptionSuspended");
        SystemClient.awaitAllConsumed();
        umbra.entitlements(paid.guildId()).body("status", equalTo("SUSPENDED")).body("entitledPlan", equalTo("FREE"));
        assertThat(eventTypes(Topics.of(Aggregates.LICENSE), licenseId, "LicenseSuspended")).filteredOn("LicenseSuspended"::equals)
                .hasSize(1);
        await().atMost(TIMEOUT).until(() -> umbra.toldTo(paid.owner()).contains("Umbra is paused for your server (BOT_KICKED)."));
        SystemClient.awaitAllConsumed();
        SystemClient.awaitMessagesSent();
        assertThat(umbra.toldTo(paid.owner())).containsOnlyOnce("Umbra is paused for your server (BOT_KICKED).");
        assertThat(umbra.chargesOf(paid.subscription())).hasSize(1);

        // the bot is back: billing runs the subscription again, licensing grants PRO again, the owner hears of it
        umbra.reinstall(paid.guildId(), paid.owner());
        await().atMost(TIMEOUT).untilAsserted(() -> umbra.subscription(paid).body("status", equalTo("ACTIVE")));
        await().atMost(TIMEOUT).untilAsserted(() -> umbra.entitlements(paid.guildId()).body("status", equalTo("ACTIVE"))
                .body("entitledPlan", equalTo("PRO")));
        await().atMost(TIMEOUT).until(() -> umbra.toldTo(paid.owner()).contains("Your subscription is running again."));
        SystemClient.awaitAllConsumed();
        assertThat(eventTypes(Topics.of(Aggregates.SUBSCRIPTION), paid.subscription().toString(), "SubscriptionResumed"))
                .containsExactly("SubscriptionStarted", "SubscriptionSuspended", "SubscriptionResumed");
        SystemClient.awaitMessagesSent();
        assertThat(umbra.toldTo(paid.owner())).containsOnlyOnce("Your subscription is running again.");
        assertThat(umbra.auditedEventsOf("subscription", paid.subscription().toString())).isEqualTo(3);
        // the paid period is still running: nothing is charged for coming back
        assertThat(umbra.chargesOf(paid.subscription())).hasSize(1);
    }

    private long declinedRenewals(Subscribed paid) {
        return umbra.chargesOf(paid.subscription()).stream().filter(charge -> charge.status() == PaymentGatewaySandbox.Status.ABORTED)
                .count();
    }
}
