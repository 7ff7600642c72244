package dev.umbra.guild.lifecycle;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.guild.OutboxFailureProbe;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.time.Duration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "guild"), @ResourceArg(name = "outbox", value = "guild")})
class GuildResourceIT {

    private static final Duration EVENT_TIMEOUT = Duration.ofSeconds(30);
    private static final String GUILD_TOPIC = Topics.of(Aggregates.GUILD);
    @InjectDevstack
    Database db;

    @Inject
    OutboxFailureProbe failureProbe;

    @Test
    void installingPublishesBotInstalledKeyedByGuild() {
        String guildId = Snowflakes.random();
        String installer = Snowflakes.random();

        String traceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).header("traceparent", traceParent)
                .body("{\"installerUserId\":\"" + installer + "\"}")
                .when().post("/guilds/{id}/installation", guildId)
                .then().statusCode(201)
                .body("guildId", equalTo(guildId))
                .body("status", equalTo("INSTALLED"));

        try (KafkaProbe topic = KafkaProbe.read(GUILD_TOPIC)) {
            ConsumerRecord<String, byte[]> record = topic.awaitRecord(r -> guildId.equals(r.key()), EVENT_TIMEOUT);
            assertThat(KafkaProbe.header(record, EventHeaders.EVENT_TYPE)).isEqualTo("BotInstalled");
            assertThat(KafkaProbe.header(record, EventHeaders.AGGREGATE_TYPE)).isEqualTo(Aggregates.GUILD);
            assertThat(KafkaProbe.header(record, EventHeaders.EVENT_ID)).isNotBlank();
            assertThat(KafkaProbe.header(record, EventHeaders.OCCURRED_AT)).isNotBlank();
            assertThat(KafkaProbe.header(record, EventHeaders.SCHEMA_VERSION)).isEqualTo("1");
            assertThat(KafkaProbe.header(record, EventHeaders.SEQUENCE)).isEqualTo("1");
            // the request's span, a child of the caller's: the same trace, a span of its own
            assertThat(KafkaProbe.header(record, EventHeaders.TRACE_PARENT))
                    .matches("00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-0[01]")
                    .doesNotContain("b7ad6b7169203331");
            assertThat(KafkaProbe.value(record))
                    .isEqualTo("{\"guild_id\": \"" + guildId + "\", \"installer_user_id\": \"" + installer + "\"}");
        }
        assertThat(db.count("select count(*) from outbox_event")).isZero();
        given().auth().oauth2(Tokens.bot()).when().get("/guilds/{id}", guildId)
                .then().statusCode(200).body("installerUserId", equalTo(installer));
    }

    @Test
    void aRepeatedInstallAnswers200AndPublishesNothing() {
        String guildId = Snowflakes.random();
        install(guildId).then().statusCode(201);
        install(guildId).then().statusCode(200).body("status", equalTo("INSTALLED"));
        // A later event on the same partition proves that everything before it has been read.
        String marker = Snowflakes.onSamePartitionAs(guildId, 3);
        install(marker).then().statusCode(201);

        try (KafkaProbe topic = KafkaProbe.read(GUILD_TOPIC)) {
            topic.awaitRecord(r -> marker.equals(r.key()), EVENT_TIMEOUT);
            assertThat(topic.seen()).filteredOn(r -> guildId.equals(r.key())).hasSize(1);
        }
    }

    @Test
    void aTransactionThatFailsAfterWritingItsOutboxRowEmitsNothing() {
        String guildId = Snowflakes.random();
        OutboxFailureProbe.LateFailure failure = catchThrowableOfType(OutboxFailureProbe.LateFailure.class,
                () -> VertxContextSupport.subscribeAndAwait(() -> failureProbe.publishThenFail(new BotInstalled(guildId, "1"))));
        String rolledBackEventId = failure.written.eventId().toString();
        // Committed after the failed one on the same key, so it is read after it, were it ever emitted.
        install(guildId).then().statusCode(201);

        try (KafkaProbe topic = KafkaProbe.read(GUILD_TOPIC)) {
            ConsumerRecord<String, byte[]> committed = topic.awaitRecord(r -> guildId.equals(r.key()), EVENT_TIMEOUT);
            assertThat(KafkaProbe.header(committed, EventHeaders.EVENT_ID)).isNotEqualTo(rolledBackEventId);
            assertThat(topic.seen()).noneMatch(r -> rolledBackEventId.equals(KafkaProbe.header(r, EventHeaders.EVENT_ID)));
        }
        assertThat(db.count("select count(*) from guild where guild_id = ?", guildId)).isOne();
    }

    @Test
    void malformedJsonIsA400ProblemAndStoresNothing() {
        String guildId = Snowflakes.random();
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"installerUserId\":")
                .when().post("/guilds/{id}/installation", guildId)
                .then().statusCode(400).contentType("application/problem+json")
                .body("status", equalTo(400));

        assertThat(db.count("select count(*) from guild where guild_id = ?", guildId)).isZero();
    }

    @Test
    void invalidIdsAreA400ProblemNamingTheFieldsAndStoreNothing() {
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"installerUserId\":\"abc\"}")
                .when().post("/guilds/{id}/installation", "12x")
                .then().statusCode(400).contentType("application/problem+json")
                .body("violations.field", hasItem("guildId"))
                .body("violations.field", hasItem("request.installerUserId"));
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{}")
                .when().post("/guilds/{id}/installation", Snowflakes.random())
                .then().statusCode(400).contentType("application/problem+json");

        assertThat(db.count("select count(*) from guild where guild_id = '12x'")).isZero();
    }

    @Test
    void anUnknownGuildIsA404Problem() {
        given().auth().oauth2(Tokens.bot()).when().get("/guilds/{id}", Snowflakes.random())
                .then().statusCode(404).contentType("application/problem+json").body("title", equalTo("Not Found"));
    }

    @Test
    void onlyTheBotMayInstall() {
        String guildId = Snowflakes.random();
        given().contentType(ContentType.JSON).body("{\"installerUserId\":\"223456789012345678\"}")
                .when().post("/guilds/{id}/installation", guildId).then().statusCode(401);
        given().auth().oauth2(Tokens.user("someone")).contentType(ContentType.JSON).body("{\"installerUserId\":\"223456789012345678\"}")
                .when().post("/guilds/{id}/installation", guildId).then().statusCode(403);

        assertThat(db.count("select count(*) from guild where guild_id = ?", guildId)).isZero();
    }

    private static io.restassured.response.Response install(String guildId) {
        return given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                .body("{\"installerUserId\":\"223456789012345678\"}")
                .when().post("/guilds/{id}/installation", guildId);
    }
}
