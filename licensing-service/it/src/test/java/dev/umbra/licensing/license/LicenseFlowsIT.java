package dev.umbra.licensing.license;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.events.billing.PaymentFailedFinal;
import dev.umbra.events.billing.PaymentSucceeded;
import dev.umbra.events.billing.PlanUpgraded;
import dev.umbra.events.billing.SubscriptionCanceled;
import dev.umbra.events.billing.SubscriptionResumed;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.billing.SubscriptionSuspended;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.events.guild.GuildDeleted;
import dev.umbra.platform.inbox.DeadLetters;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.InboxProbe;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The three flows (docs/architecture.md) through the real consumers: Kafka, the inbox, the database, the outbox back to Kafka. */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.platform.inbox.DeadLetters", message = "dead-lettering")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "licensing"), @ResourceArg(name = "outbox", value = "licensing")})
class LicenseFlowsIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    @InjectDevstack
    Database db;

    @InjectDevstack
    InboxProbe inbox;
    private static final Instant T = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    private static final Instant PERIOD_END = T.plus(Duration.ofDays(30));
    private static final Instant RENEWED_END = T.plus(Duration.ofDays(60));

    @Inject
    InMemorySpanExporter spans;

    record Timed(DomainEvent event, Instant occurredAt) {
    }

    @Test
    void botKickedAndTheBotsReturnConvergeWhicheverTopicIsReadFirst() {
        String guildFirst = Snowflakes.random();
        String subscriptionsFirst = Snowflakes.random();

        apply(flow3GuildEvents(guildFirst), flow3SubscriptionEvents(guildFirst));
        apply(flow3SubscriptionEvents(subscriptionsFirst), flow3GuildEvents(subscriptionsFirst));

        JsonPath one = license(guildFirst);
        JsonPath other = license(subscriptionsFirst);
        for (JsonPath license : List.of(one, other)) {
            assertThat(license.getString("plan")).isEqualTo("PRO");
            assertThat(license.getString("status")).isEqualTo("SUSPENDED");
            assertThat(license.getString("suspensionReason")).isEqualTo("BOT_KICKED");
            assertThat(Instant.parse(license.getString("expiresAt"))).isEqualTo(RENEWED_END);
        }

        // the bot back (BotInstalled) and billing running the subscription again (SubscriptionResumed)
        apply(List.of(backAgain(guildFirst)), List.of(resumed(guildFirst)));
        apply(List.of(resumed(subscriptionsFirst)), List.of(backAgain(subscriptionsFirst)));
        for (String guildId : List.of(guildFirst, subscriptionsFirst)) {
            JsonPath license = license(guildId);
            assertThat(license.getString("plan")).isEqualTo("PRO");
            assertThat(license.getString("status")).isEqualTo("ACTIVE");
            assertThat(license.getString("suspensionReason")).isNull();
            assertThat(Instant.parse(license.getString("expiresAt"))).isEqualTo(RENEWED_END);
        }
    }

    @Test
    void dunningEndsOnTheFreePlanWhenTheSubscriptionEventsComeFirst() {
        String guildId = Snowflakes.random();
        UUID subscription = UUID.randomUUID();
        apply(List.of(
                new Timed(new SubscriptionStarted(subscription, guildId, "PRO", PERIOD_END), T.plusSeconds(60)),
                new Timed(new PaymentSucceeded(subscription, UUID.randomUUID(), RENEWED_END), T.plus(Duration.ofDays(30))),
                new Timed(new PaymentFailedFinal(subscription), T.plus(Duration.ofDays(64)))),
                List.of(new Timed(new BotInstalled(guildId, "223456789012345678"), T)));

        JsonPath license = license(guildId);
        assertThat(license.getString("plan")).isEqualTo("FREE");
        assertThat(license.getString("status")).isEqualTo("ACTIVE");
        assertThat(license.getString("expiresAt")).isNull();
    }

    @Test
    void aSubscriptionCanceledNowEndsThePaidPlanAndOneCanceledWhileTheBotWasKickedLeavesNoSuspensionOnceItIsBack() {
        String canceledNow = Snowflakes.random();
        UUID subscription = UUID.randomUUID();
        apply(List.of(new Timed(new BotInstalled(canceledNow, "223456789012345678"), T)), List.of(
                new Timed(new SubscriptionStarted(subscription, canceledNow, "PRO", PERIOD_END), T.plusSeconds(60)),
                new Timed(new SubscriptionCanceled(subscription, false), T.plus(Duration.ofDays(3)))));
        JsonPath license = license(canceledNow);
        assertThat(license.getString("plan")).isEqualTo("FREE");
        assertThat(license.getString("status")).isEqualTo("ACTIVE");

        // kicked (billing suspends the subscription too), canceled while kicked, then the bot is back
        String kicked = Snowflakes.random();
        UUID kickedSubscription = UUID.randomUUID();
        apply(List.of(new Timed(new BotInstalled(kicked, "223456789012345678"), T), new Timed(new BotKicked(kicked), T.plus(Duration.ofDays(2))),
                new Timed(new BotInstalled(kicked, "223456789012345678"), T.plus(Duration.ofDays(4)))), List.of(
                new Timed(new SubscriptionStarted(kickedSubscription, kicked, "PRO", PERIOD_END), T.plusSeconds(60)),
                new Timed(new SubscriptionSuspended(kickedSubscription, "BOT_KICKED"), T.plus(Duration.ofDays(2)).plusSeconds(1)),
                new Timed(new SubscriptionCanceled(kickedSubscription, false), T.plus(Duration.ofDays(3)))));
        license = license(kicked);
        assertThat(license.getString("plan")).isEqualTo("FREE");
        assertThat(license.getString("status")).isEqualTo("ACTIVE");
        assertThat(license.getString("suspensionReason")).isNull();
    }

    @Test
    void aGuildDeletedBeforeItsInstallWasSeenEndsCanceledWhicheverTopicIsReadFirstAndNobodyIsToldOfALicense() {
        // kicked while guild-service had not seen its install, then deleted: no BotInstalled ever; billing cancels on the delete
        for (boolean guildFirst : List.of(true, false)) {
            String guildId = Snowflakes.random();
            UUID subscription = UUID.randomUUID();
            List<Timed> guildTopic = List.of(new Timed(new GuildDeleted(guildId), T.plus(Duration.ofDays(2))));
            List<Timed> subscriptionTopic = List.of(new Timed(new SubscriptionStarted(subscription, guildId, "PRO", PERIOD_END), T.plusSeconds(60)),
                    new Timed(new SubscriptionCanceled(subscription, false), T.plus(Duration.ofDays(2)).plusSeconds(1)));
            apply(guildFirst ? guildTopic : subscriptionTopic, guildFirst ? subscriptionTopic : guildTopic);

            JsonPath license = license(guildId);
            assertThat(license.getString("status")).as("guild topic first: %s", guildFirst).isEqualTo("CANCELED");
            assertThat(license.getString("plan")).isEqualTo("FREE");
            if (guildFirst) {
                String licenseId = license.getString("licenseId");
                assertThat(db.count("select count(*) from aggregate_sequence where aggregate_id = ?", licenseId))
                        .as("nothing published for a guild gone before its license existed").isZero();
            }
        }
    }

    @Test
    void aNewSubscriptionStampedBeforeTheOldOnesEndByABillingReplicaWhoseClockIsBehindIsOrderedByBillingsCommitTime() {
        String guildId = Snowflakes.random();
        UUID first = UUID.randomUUID();
        UUID second = UUID.randomUUID();
        Instant canceledAt = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(60);
        apply(List.of(new Timed(new BotInstalled(guildId, "223456789012345678"), canceledAt.minusSeconds(120))), List.of());
        inbox.awaitProcessed("licensing", List.of(
                OutboxRecords.publishCommitted(new SubscriptionStarted(first, guildId, "PRO", PERIOD_END), canceledAt.minusSeconds(60),
                        canceledAt.minusSeconds(60))));
        inbox.awaitProcessed("licensing", List.of(
                OutboxRecords.publishCommitted(new SubscriptionCanceled(first, false), canceledAt, canceledAt)));
        // subscribed again at once, through a billing replica whose clock is two seconds behind billing's database
        inbox.awaitProcessed("licensing", List.of(
                OutboxRecords.publishCommitted(new SubscriptionStarted(second, guildId, "PREMIUM", PERIOD_END), canceledAt.minusSeconds(1),
                        canceledAt.plusSeconds(1))));

        JsonPath license = license(guildId);
        assertThat(license.getString("plan")).isEqualTo("PREMIUM");
        assertThat(license.getString("status")).isEqualTo("ACTIVE");
    }

    @Test
    void aHandlerAppliedTwiceInARowHasOneEffectAndOneEvent() {
        String guildId = Snowflakes.random();
        apply(List.of(new Timed(new BotInstalled(guildId, "223456789012345678"), T)), List.of());
        String licenseId = license(guildId).getString("licenseId");
        // The same kick twice, as two events (a replay under a new id): the dedupe cannot help, the rules must.
        apply(List.of(new Timed(new BotKicked(guildId), T.plusSeconds(10)), new Timed(new BotKicked(guildId), T.plusSeconds(10))), List.of());
        apply(List.of(new Timed(new GuildDeleted(guildId), T.plusSeconds(20))), List.of());

        try (KafkaProbe licenses = KafkaProbe.read(Topics.of(Aggregates.LICENSE))) {
            licenses.awaitRecord(r -> licenseId.equals(r.key()) && "LicenseCanceled".equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)), TIMEOUT);
            assertThat(licenses.seen()).filteredOn(r -> licenseId.equals(r.key()))
                    .extracting(r -> KafkaProbe.header(r, EventHeaders.EVENT_TYPE))
                    .containsExactly("LicenseGranted", "LicenseSuspended", "LicenseCanceled");
        }
    }

    @Test
    void anUpgradeRedrivenAfterALaterRenewalOfItsSubscriptionIsAppliedAndAnOlderSuspensionAfterTheResumeIsNot() {
        String guildId = Snowflakes.random();
        UUID subscription = UUID.randomUUID();
        Instant renewedTo = PERIOD_END.plus(Duration.ofDays(30));
        inbox.awaitProcessed("licensing", List.of(
                OutboxRecords.publish(new BotInstalled(guildId, "223456789012345678"), T),
                OutboxRecords.publish(new SubscriptionStarted(subscription, guildId, "PRO", PERIOD_END), T.plusSeconds(10)),
                OutboxRecords.publish(new PaymentSucceeded(subscription, UUID.randomUUID(), renewedTo), T.plusSeconds(30)),
                OutboxRecords.publish(new SubscriptionResumed(subscription, "BILLING_KEY_DELETED"), T.plusSeconds(50))));

        // dead-lettered at first (a plan licensing did not know yet, a bug fixed since) and re-produced now, after the later events
        inbox.awaitProcessed("licensing", List.of(
                OutboxRecords.publish(new PlanUpgraded(subscription, "PRO", "PREMIUM"), T.plusSeconds(20)),
                OutboxRecords.publish(new SubscriptionSuspended(subscription, "BILLING_KEY_DELETED"), T.plusSeconds(40))));

        JsonPath license = license(guildId);
        assertThat(license.getString("plan")).as("the upgrade wrote what no later event wrote").isEqualTo("PREMIUM");
        assertThat(license.getString("status")).as("the resume came after the suspension").isEqualTo("ACTIVE");
        assertThat(Instant.parse(license.getString("expiresAt"))).isEqualTo(renewedTo);
    }

    @Test
    void anEventWithAnUnknownPlanCodeGoesToTheDeadLetterTopicAndTheNextIsApplied() {
        String guildId = Snowflakes.random();
        UUID subscription = UUID.randomUUID();
        UUID unknownPlan = OutboxRecords.publish(new SubscriptionStarted(subscription, guildId, "ULTRA", PERIOD_END), T);
        UUID next = OutboxRecords.publish(new SubscriptionStarted(subscription, guildId, "PREMIUM", PERIOD_END), T.plusSeconds(1));

        inbox.awaitProcessed("licensing", List.of(next));
        try (KafkaProbe deadLetters = KafkaProbe.read(Topics.deadLetterOf(Topics.of(Aggregates.SUBSCRIPTION)))) {
            var record = deadLetters.awaitRecord(r -> unknownPlan.toString().equals(KafkaProbe.header(r, EventHeaders.EVENT_ID)), TIMEOUT);
            assertThat(KafkaProbe.header(record, DeadLetters.ERROR_MESSAGE)).contains("ULTRA");
        }
        assertThat(license(guildId).getString("plan")).isEqualTo("PREMIUM");
    }

    @Test
    void entitlementsFollowThePlanWhileTheLicenseIsActive() {
        String guildId = Snowflakes.random();
        UUID subscription = UUID.randomUUID();
        apply(List.of(new Timed(new BotInstalled(guildId, "223456789012345678"), T)),
                List.of(new Timed(new SubscriptionStarted(subscription, guildId, "PRO", PERIOD_END), T.plusSeconds(5))));

        given().auth().oauth2(Tokens.bot()).when().get("/guilds/{id}/entitlements", guildId)
                .then().statusCode(200)
                .body("plan", equalTo("PRO")).body("entitledPlan", equalTo("PRO"))
                .body("entitlements.snapshotRetention", equalTo(7))
                .body("entitlements.antiNuke", equalTo(true));

        apply(List.of(new Timed(new BotKicked(guildId), T.plusSeconds(10))), List.of());
        given().auth().oauth2(Tokens.bot()).when().get("/guilds/{id}/entitlements", guildId)
                .then().statusCode(200)
                .body("status", equalTo("SUSPENDED")).body("entitledPlan", equalTo("FREE"))
                .body("entitlements.antiNuke", equalTo(false));

        given().auth().oauth2(Tokens.bot()).when().get("/guilds/{id}/entitlements", Snowflakes.random())
                .then().statusCode(404).contentType("application/problem+json");
        given().auth().oauth2(Tokens.user("someone")).when().get("/guilds/{id}/entitlements", guildId)
                .then().statusCode(403);
    }

    @Test
    void theTraceOfAGuildEventGoesOnInTheConsumerAndInTheLicenseEventItPublishes() {
        String traceId = hex(32);
        String guildServiceSpan = hex(16);
        String guildId = Snowflakes.random();
        // BotInstalled as guild-service's outbox publishes it from inside a sampled request
        UUID installed = OutboxRecords.publish(new BotInstalled(guildId, "223456789012345678"), T,
                "00-" + traceId + "-" + guildServiceSpan + "-01");
        inbox.awaitProcessed("licensing", List.of(installed));
        String licenseId = license(guildId).getString("licenseId");

        String granted;
        try (KafkaProbe licenses = KafkaProbe.read(Topics.of(Aggregates.LICENSE))) {
            granted = KafkaProbe.header(licenses.awaitRecord(r -> licenseId.equals(r.key())
                    && "LicenseGranted".equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)), TIMEOUT), EventHeaders.TRACE_PARENT);
        }
        assertThat(granted).as("the license event's traceparent").matches("00-" + traceId + "-[0-9a-f]{16}-01");

        SpanData consumed = await().atMost(TIMEOUT).until(() -> spans.getFinishedSpanItems().stream()
                .filter(span -> span.getTraceId().equals(traceId) && span.getKind() == SpanKind.CONSUMER
                        && installed.toString().equals(span.getAttributes().get(AttributeKey.stringKey("messaging.message.id"))))
                .findFirst(), java.util.Optional::isPresent).orElseThrow();
        assertThat(consumed.getParentSpanId()).as("the consumer's span is the child of guild-service's").isEqualTo(guildServiceSpan);
        assertThat(consumed.getParentSpanContext().isRemote()).isTrue();
        assertThat(granted.split("-")[2]).as("the license event was published inside the consumer's span").isEqualTo(consumed.getSpanId());
    }

    private static String hex(int digits) {
        StringBuilder hex = new StringBuilder();
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        while (hex.length() < digits) {
            hex.append(Integer.toHexString(random.nextInt(16)));
        }
        return hex.toString();
    }

    private static List<Timed> flow3GuildEvents(String guildId) {
        return List.of(new Timed(new BotInstalled(guildId, "223456789012345678"), T),
                new Timed(new BotKicked(guildId), T.plus(Duration.ofDays(2))));
    }

    private static List<Timed> flow3SubscriptionEvents(String guildId) {
        UUID subscription = UUID.nameUUIDFromBytes(guildId.getBytes());
        return List.of(
                new Timed(new SubscriptionStarted(subscription, guildId, "PRO", PERIOD_END), T.plusSeconds(60)),
                new Timed(new PaymentSucceeded(subscription, UUID.randomUUID(), RENEWED_END), T.plus(Duration.ofDays(1))),
                new Timed(new SubscriptionSuspended(subscription, "BOT_KICKED"), T.plus(Duration.ofDays(2)).plusSeconds(1)));
    }

    private static Timed backAgain(String guildId) {
        return new Timed(new BotInstalled(guildId, "223456789012345678"), T.plus(Duration.ofDays(3)));
    }

    private static Timed resumed(String guildId) {
        return new Timed(new SubscriptionResumed(UUID.nameUUIDFromBytes(guildId.getBytes()), "BOT_KICKED"),
                T.plus(Duration.ofDays(3)).plusSeconds(1));
    }

    /** Publishes the first list and waits until it is applied, then the second: a chosen order across topics. */
    private void apply(List<Timed> first, List<Timed> second) {
        for (List<Timed> batch : List.of(first, second)) {
            List<UUID> ids = new ArrayList<>();
            batch.forEach(timed -> ids.add(OutboxRecords.publish(timed.event(), timed.occurredAt())));
            inbox.awaitProcessed("licensing", ids);
        }
    }

    private static JsonPath license(String guildId) {
        return given().auth().oauth2(Tokens.bot()).when().get("/guilds/{id}/license", guildId)
                .then().statusCode(200).extract().jsonPath();
    }
}
