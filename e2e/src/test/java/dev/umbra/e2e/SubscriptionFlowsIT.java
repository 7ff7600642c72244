package dev.umbra.e2e;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.DiscordSandbox;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The subscription flows across the packaged services, driven only as an operator or a client
 * would: their HTTP APIs, Kafka, the sandboxes, and billing's test clock. Each flow checks every
 * service it crosses: billing's subscription, licensing's entitlements, what the gateway charged,
 * the events on the topics and what the guild's owner was told on Discord.
 */
class SubscriptionFlowsIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String PAYMENT_FAILED = "A payment for your subscription failed";

    private static LocalSystem system;
    private final PaymentGatewaySandbox gateway = Devstack.shared().paymentGateway();
    private final DiscordSandbox discord = Devstack.shared().discord();

    /** A guild with the bot installed by {@code owner} (a Discord id), paid for by {@code user} (an Umbra user id). */
    record Subscribed(String guildId, String owner, UUID user, UUID billingKey, UUID subscription) {
    }

    @BeforeAll
    static void startSystem() {
        system = RunningSystem.get();
    }

    @AfterAll
    static void logsAreClean() {
        RunningSystem.assertCleanLogs();
    }

    @BeforeEach
    void healthyGateway() {
        gateway.recover();
    }

    @Test
    void flowOneTheFirstSubscriptionMakesTheGuildProChargedOnceAndTheOwnerHearsOfIt() {
        Subscribed paid = subscribedToPro();

        await().atMost(TIMEOUT).untilAsserted(() -> entitlements(paid.guildId())
                .body("entitledPlan", equalTo("PRO")).body("status", equalTo("ACTIVE")));
        await().atMost(TIMEOUT).until(() -> toldTo(paid.owner()).contains("Your PRO subscription is active. Thank you!"));

        List<PaymentGatewaySandbox.Charge> charges = chargesOf(paid.subscription());
        assertThat(charges).singleElement().satisfies(charge -> assertThat(charge.amount()).isEqualTo(9_900));
        assertThat(eventTypes(Topics.of(Aggregates.SUBSCRIPTION), paid.subscription().toString(), "SubscriptionStarted"))
                .containsExactly("SubscriptionStarted");
        assertThat(toldTo(paid.owner())).containsOnlyOnce("Your PRO subscription is active. Thank you!");
    }

    @Test
    void flowTwoDunningCancelsAfterTheFourthDeclinedRenewalAndTheGuildFallsBackToFree() {
        Subscribed paid = subscribedToPro();
        await().atMost(TIMEOUT).untilAsserted(() -> entitlements(paid.guildId()).body("entitledPlan", equalTo("PRO")));
        gateway.declineCustomer(paid.user().toString());

        advanceBillingClock(Duration.ofDays(32));
        for (int failure = 1; failure <= 4; failure++) {
            if (failure > 1) {
                advanceBillingClock(Duration.ofHours(24));
            }
            int failures = failure;
            await().atMost(TIMEOUT).until(() -> declinedRenewals(paid.subscription()) == failures);
            if (failure < 4) {
                await().atMost(TIMEOUT).untilAsserted(() -> subscription(paid).body("status", equalTo("PAST_DUE")));
                await().atMost(TIMEOUT).until(() -> toldTo(paid.owner()).stream().filter(m -> m.startsWith(PAYMENT_FAILED)).count() == failures);
            }
        }

        await().atMost(TIMEOUT).untilAsserted(() -> subscription(paid).body("status", equalTo("CANCELED")));
        await().atMost(TIMEOUT).untilAsserted(() -> entitlements(paid.guildId()).body("entitledPlan", equalTo("FREE")));
        await().atMost(TIMEOUT).until(() -> toldTo(paid.owner())
                .contains("We could not collect your subscription's payment; the subscription is canceled."));
        assertThat(chargesOf(paid.subscription())).as("the first charge and four declined renewals, nothing more")
                .hasSize(5).filteredOn(charge -> charge.status() == PaymentGatewaySandbox.Status.DONE).hasSize(1);
        assertThat(eventTypes(Topics.of(Aggregates.SUBSCRIPTION), paid.subscription().toString(), "PaymentFailedFinal"))
                .containsExactly("SubscriptionStarted", "PaymentFailed", "PaymentFailed", "PaymentFailed", "PaymentFailedFinal");
    }

    @Test
    void flowThreeAKickSuspendsTheSubscriptionAndItsEchoChangesNothingMore() {
        Subscribed paid = subscribedToPro();
        await().atMost(TIMEOUT).untilAsserted(() -> entitlements(paid.guildId()).body("entitledPlan", equalTo("PRO")));
        String licenseId = given().baseUri(system.url("licensing")).auth().oauth2(Tokens.bot())
                .when().get("/guilds/{id}/license", paid.guildId()).then().statusCode(200).extract().path("licenseId");

        given().baseUri(system.url("guild")).auth().oauth2(Tokens.bot())
                .when().delete("/guilds/{id}/installation", paid.guildId())
                .then().statusCode(200);

        // BotKicked suspends the license at once; billing's SubscriptionSuspended, caused by the same
        // kick, reaches licensing afterwards: the echo finds the license suspended and changes nothing
        await().atMost(TIMEOUT).untilAsserted(() -> subscription(paid).body("status", equalTo("SUSPENDED")));
        eventTypes(Topics.of(Aggregates.SUBSCRIPTION), paid.subscription().toString(), "SubscriptionSuspended");
        awaitConsumed("licensing-service", Topics.of(Aggregates.SUBSCRIPTION));
        awaitConsumed("guild-service", Topics.of(Aggregates.LICENSE));
        entitlements(paid.guildId()).body("status", equalTo("SUSPENDED")).body("entitledPlan", equalTo("FREE"));
        List<String> licenseEvents = eventTypes(Topics.of(Aggregates.LICENSE), licenseId, "LicenseSuspended");
        assertThat(licenseEvents).filteredOn("LicenseSuspended"::equals).hasSize(1);
        await().atMost(TIMEOUT).until(() -> toldTo(paid.owner()).contains("Umbra is paused for your server (BOT_KICKED)."));
        assertThat(toldTo(paid.owner())).containsOnlyOnce("Umbra is paused for your server (BOT_KICKED).");
        assertThat(chargesOf(paid.subscription())).hasSize(1);
    }

    private Subscribed subscribedToPro() {
        String guildId = Snowflakes.random();
        String owner = Snowflakes.random();
        UUID user = UUID.randomUUID();
        given().baseUri(system.url("guild")).auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                .body(Map.of("installerUserId", owner))
                .when().post("/guilds/{id}/installation", guildId)
                .then().statusCode(201);
        await().atMost(TIMEOUT).untilAsserted(() -> entitlements(guildId).body("entitledPlan", equalTo("FREE")));

        UUID billingKey = UUID.fromString(given().baseUri(system.url("billing")).auth().oauth2(Tokens.user(user.toString()))
                .contentType(ContentType.JSON).body(Map.of("authKey", "auth-" + UUID.randomUUID()))
                .when().post("/users/{userId}/billing-keys", user)
                .then().statusCode(201).extract().path("id"));
        UUID subscription = UUID.fromString(given().baseUri(system.url("billing")).auth().oauth2(Tokens.user(user.toString()))
                .contentType(ContentType.JSON)
                .body(Map.of("guildId", guildId, "userId", user.toString(), "planCode", "PRO", "billingKeyId", billingKey.toString()))
                .when().post("/subscriptions")
                .then().statusCode(201).body("status", equalTo("ACTIVE")).extract().path("id"));
        return new Subscribed(guildId, owner, user, billingKey, subscription);
    }

    private static ValidatableResponse entitlements(String guildId) {
        return given().baseUri(system.url("licensing")).auth().oauth2(Tokens.bot())
                .when().get("/guilds/{id}/entitlements", guildId).then().statusCode(200);
    }

    private static ValidatableResponse subscription(Subscribed paid) {
        return given().baseUri(system.url("billing")).auth().oauth2(Tokens.user(paid.user().toString()))
                .when().get("/subscriptions/{id}", paid.subscription()).then().statusCode(200);
    }

    private static void advanceBillingClock(Duration by) {
        given().baseUri(system.url("billing")).auth().oauth2(Tokens.admin()).contentType(ContentType.JSON)
                .body(Map.of("by", by.toString()))
                .when().post("/test-control/clock/advance")
                .then().statusCode(200);
    }

    private List<String> toldTo(String owner) {
        return discord.deliveredTo(owner).stream().map(DiscordSandbox.Delivered::content).toList();
    }

    /** What the gateway charged for the subscription: every idempotency key of its charges names it. */
    private List<PaymentGatewaySandbox.Charge> chargesOf(UUID subscription) {
        return gateway.charges().stream()
                .filter(charge -> charge.idempotencyKey() != null && charge.idempotencyKey().startsWith("sub-" + subscription))
                .toList();
    }

    private long declinedRenewals(UUID subscription) {
        return chargesOf(subscription).stream().filter(charge -> charge.status() == PaymentGatewaySandbox.Status.ABORTED).count();
    }

    /** The event types of one aggregate on its topic, in order, read until {@code last} has arrived. */
    private static List<String> eventTypes(String topic, String aggregateId, String last) {
        try (KafkaProbe probe = KafkaProbe.read(topic)) {
            probe.awaitRecord(r -> aggregateId.equals(r.key()) && last.equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)), TIMEOUT);
            return probe.seen().stream().filter(r -> aggregateId.equals(r.key()))
                    .map(r -> KafkaProbe.header(r, EventHeaders.EVENT_TYPE)).toList();
        }
    }

    /** The operator's check that a consumer group has caught up: its committed offsets are the topic's end offsets. */
    private static void awaitConsumed(String group, String topic) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, Devstack.shared().kafka().bootstrapServers()))) {
            await().atMost(TIMEOUT).until(() -> {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get();
                List<TopicPartition> partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()
                        .stream().map(p -> new TopicPartition(topic, p.partition())).toList();
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(
                        partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()))).all().get();
                return partitions.stream().allMatch(p -> {
                    OffsetAndMetadata at = committed.get(p);
                    long end = ends.get(p).offset();
                    return end == 0 || (at != null && at.offset() >= end);
                });
            });
        }
    }
}
