package dev.umbra.licensing.license;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.platform.inbox.DeadLetters;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.Metrics;
import dev.umbra.testing.InboxProbe;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** Records are produced the way Debezium's outbox router writes them: key, JSON value, envelope headers. */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.platform.inbox.DeadLetters", message = "dead-lettering")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "licensing"), @ResourceArg(name = "outbox", value = "licensing")})
class GuildEventsConsumerIT {

    private static final String GUILD_TOPIC = Topics.of(Aggregates.GUILD);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    @InjectDevstack
    Database db;

    @InjectDevstack
    InboxProbe inbox;

    @Test
    void botInstalledGrantsAFreeLicense() {
        String guildId = Snowflakes.random();
        produceBotInstalled(UUID.randomUUID(), guildId);

        await().atMost(TIMEOUT).untilAsserted(() ->
                given().auth().oauth2(Tokens.bot()).when().get("/guilds/{id}/license", guildId)
                        .then().statusCode(200)
                        .body("plan", equalTo("FREE"))
                        .body("status", equalTo("ACTIVE")));
    }

    @Test
    void theSameRecordTwiceIsAppliedOnce() {
        String guildId = Snowflakes.random();
        UUID eventId = UUID.randomUUID();
        // the other test classes of the application count duplicates too: this test's own is the difference
        double duplicatesBefore = duplicates();
        produceBotInstalled(eventId, guildId);
        produceBotInstalled(eventId, guildId);
        UUID marker = UUID.randomUUID();
        produceBotInstalled(marker, guildId);

        // The marker follows both copies on the guild's partition: once it is applied, so were they.
        inbox.awaitProcessed(marker);
        assertThat(db.count("select count(*) from processed_event where event_id = ?", eventId)).isOne();
        assertThat(db.count("select count(*) from license where guild_id = ?", guildId)).isOne();
        assertThat(duplicates() - duplicatesBefore).as("copies skipped").isEqualTo(1.0);
        // one LicenseGranted, whatever the copies: the license's outbox numbered one event
        assertThat(db.count("select last_sequence from aggregate_sequence where aggregate_type = 'license' and aggregate_id = "
                + "(select license_id::text from license where guild_id = ?)", guildId)).isOne();
    }

    private static double duplicates() {
        double counted = Metrics.scrape().sum("umbra_inbox_events_total", "consumer=\"licensing\"", "event_type=\"BotInstalled\"",
                "outcome=\"duplicate\"");
        return Double.isNaN(counted) ? 0 : counted;
    }

    @Test
    void anUndecodableRecordGoesToTheDeadLetterTopicAndTheNextOneIsApplied() {
        String guildId = Snowflakes.random();
        UUID poisonId = UUID.randomUUID();
        KafkaProbe.produce(GUILD_TOPIC, guildId, "{not json".getBytes(StandardCharsets.UTF_8), headers(poisonId, "BotInstalled"));
        UUID missingFieldId = UUID.randomUUID();
        KafkaProbe.produce(GUILD_TOPIC, guildId, "{\"installer_user_id\":\"1\"}".getBytes(StandardCharsets.UTF_8),
                headers(missingFieldId, "BotInstalled"));
        UUID goodId = UUID.randomUUID();
        produceBotInstalled(goodId, guildId);

        inbox.awaitProcessed(goodId);
        try (KafkaProbe deadLetters = KafkaProbe.read(Topics.deadLetterOf(GUILD_TOPIC))) {
            ConsumerRecord<String, byte[]> poison = deadLetters.awaitRecord(
                    r -> poisonId.toString().equals(KafkaProbe.header(r, EventHeaders.EVENT_ID)), TIMEOUT);
            assertThat(poison.key()).isEqualTo(guildId);
            assertThat(KafkaProbe.value(poison)).isEqualTo("{not json");
            assertThat(KafkaProbe.header(poison, DeadLetters.SOURCE_TOPIC)).isEqualTo(GUILD_TOPIC);
            assertThat(KafkaProbe.header(poison, DeadLetters.SOURCE_OFFSET)).matches("\\d+");
            assertThat(KafkaProbe.header(poison, DeadLetters.CONSUMER)).isEqualTo("licensing");
            assertThat(KafkaProbe.header(poison, DeadLetters.ERROR_CLASS)).endsWith("EventDecodingException");
            deadLetters.awaitRecord(r -> missingFieldId.toString().equals(KafkaProbe.header(r, EventHeaders.EVENT_ID)), TIMEOUT);
        }
        assertThat(db.count("select count(*) from processed_event where event_id in (?, ?)", poisonId, missingFieldId)).isZero();
        assertThat(db.count("select count(*) from license where guild_id = ?", guildId)).isOne();
    }

    @Test
    void eventsWithoutAHandlerAreSkipped() {
        String guildId = Snowflakes.random();
        UUID ownerChangeId = UUID.randomUUID();
        KafkaProbe.produce(GUILD_TOPIC, guildId, ("{\"guild_id\":\"" + guildId + "\",\"name\":\"renamed\"}").getBytes(StandardCharsets.UTF_8),
                headers(ownerChangeId, "GuildRenamed"));
        UUID marker = UUID.randomUUID();
        produceBotInstalled(marker, guildId);

        inbox.awaitProcessed(marker);
        assertThat(db.count("select count(*) from processed_event where event_id = ?", ownerChangeId)).isZero();
    }

    @Test
    void anUnknownGuildIsA404ProblemAndABadIdA400() {
        given().auth().oauth2(Tokens.bot()).when().get("/guilds/{id}/license", Snowflakes.random())
                .then().statusCode(404).contentType("application/problem+json");
        given().auth().oauth2(Tokens.bot()).when().get("/guilds/{id}/license", "not-a-snowflake")
                .then().statusCode(400).contentType("application/problem+json");
        given().when().get("/guilds/{id}/license", Snowflakes.random()).then().statusCode(401);
    }

    @Test
    void theGuildsStreamIsOrderedByItsSequenceNotByTheClocksOfTheReplicasThatWroteItAndAnOlderEventIsSkippedAndCounted() {
        String guildId = Snowflakes.random();
        Instant now = Instant.now();
        UUID kick = UUID.randomUUID();
        UUID reinstall = UUID.randomUUID();
        // the replica that wrote the kick runs three seconds ahead of the one that wrote the reinstall
        KafkaProbe.produceAll(List.of(
                OutboxRecords.record(new BotInstalled(guildId, "223456789012345678"), UUID.randomUUID(), now, 1),
                OutboxRecords.record(new BotKicked(guildId), kick, now.plusSeconds(3), 2),
                OutboxRecords.record(new BotInstalled(guildId, "223456789012345678"), reinstall, now.plusSeconds(1), 3)));
        inbox.awaitProcessed(reinstall);
        license(guildId).body("status", equalTo("ACTIVE"));
        double skippedBefore = skipped("BotKicked");

        // the kick once more, as a dead letter redriven after the reinstall would come: it is older, whatever its time
        UUID redriven = UUID.randomUUID();
        KafkaProbe.produceAll(List.of(OutboxRecords.record(new BotKicked(guildId), redriven, now.plusSeconds(3), 2)));
        inbox.awaitProcessed(redriven);
        license(guildId).body("status", equalTo("ACTIVE"));
        // counted once the inbox's transaction has committed, a moment after its claim is seen
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(skipped("BotKicked")).isEqualTo(skippedBefore + 1));
    }

    private static io.restassured.response.ValidatableResponse license(String guildId) {
        return given().auth().oauth2(Tokens.bot()).when().get("/guilds/{id}/license", guildId).then().statusCode(200);
    }

    private static void produceBotInstalled(UUID eventId, String guildId) {
        OutboxRecords.publish(new BotInstalled(guildId, "223456789012345678"), eventId, Instant.now());
    }

    private static Map<String, String> headers(UUID eventId, String eventType) {
        return OutboxRecords.headers(eventType, Aggregates.GUILD, eventId, Instant.now());
    }

    private static double skipped(String eventType) {
        double sum = Metrics.scrape().sum("umbra_licensing_events_skipped_total", "event_type=\"" + eventType + "\"");
        return Double.isNaN(sum) ? 0 : sum;
    }
}
