package dev.umbra.guild.identity;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.testing.Concurrently;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "guild"), @ResourceArg(name = "outbox", value = "guild")})
class IdentityIT {

    @InjectDevstack
    Database db;
    private final List<String> logLines = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logLines.add(record.getLoggerName() + " " + record.getMessage() + " " + java.util.Arrays.toString(record.getParameters())
                    + (record.getThrown() == null ? "" : " " + record.getThrown()));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void captureLogs() {
        Logger root = Logger.getLogger("");
        root.addHandler(capture);
        capture.setLevel(Level.ALL);
    }

    @AfterEach
    void stopCapture() {
        Logger.getLogger("").removeHandler(capture);
    }

    @Test
    void registeringIsIdempotentOnTheDiscordId() {
        String discordId = Snowflakes.random();
        String userId = register(discordId).then().statusCode(201).extract().path("userId");
        register(discordId).then().statusCode(200).body("userId", equalTo(userId));

        assertThat(db.count("select count(*) from app_user where discord_user_id = ?", discordId)).isOne();
        try (KafkaProbe users = KafkaProbe.read(Topics.of(Aggregates.USER))) {
            users.awaitRecord(r -> userId.equals(r.key()) && "UserRegistered".equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)),
                    Duration.ofSeconds(30));
            given().auth().oauth2(Tokens.bot()).when().post("/users/{id}/sessions", userId).then().statusCode(201);
            users.awaitRecord(r -> userId.equals(r.key()) && "UserSessionCreated".equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)),
                    Duration.ofSeconds(30));
            assertThat(users.seen()).filteredOn(r -> userId.equals(r.key()))
                    .extracting(r -> KafkaProbe.header(r, EventHeaders.EVENT_TYPE))
                    .containsExactly("UserRegistered", "UserSessionCreated");
        }
    }

    @Test
    void registrationsOfOneDiscordAccountAtOnceMakeOneUserAndAnswerTheOthersAsRepeats() throws Exception {
        String discordId = Snowflakes.random();
        List<Response> answers = Concurrently.run(4, caller -> register(discordId));

        assertThat(answers).extracting(Response::statusCode).containsOnlyOnce(201).allMatch(status -> status == 201 || status == 200);
        assertThat(answers).extracting(answer -> answer.path("userId").toString()).containsOnly(answers.get(0).path("userId").toString());
        assertThat(db.count("select count(*) from app_user where discord_user_id = ?", discordId)).isOne();
    }

    @Test
    void aSessionTokenIsShownOnceStoredOnlyAsAHashAndNeverLoggedOrPublished() throws Exception {
        String userId = register(Snowflakes.random()).then().statusCode(201).extract().path("userId");
        String token = given().auth().oauth2(Tokens.bot()).when().post("/users/{id}/sessions", userId)
                .then().statusCode(201).body("userId", equalTo(userId)).extract().path("token");
        assertThat(token).hasSizeGreaterThanOrEqualTo(43);

        String hash = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(token.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertThat(db.count("select count(*) from user_session where user_id = ?::uuid and token_hash = ?", userId, hash)).isOne();
        assertThat(db.count("select count(*) from user_session s where s.token_hash = ? or s.session_id::text = ?", token, token)).isZero();
        String sessionId = db.text("select session_id::text from user_session where user_id = ?::uuid", userId);

        try (KafkaProbe users = KafkaProbe.read(Topics.of(Aggregates.USER))) {
            ConsumerRecord<String, byte[]> created = users.awaitRecord(r -> userId.equals(r.key())
                    && "UserSessionCreated".equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)), Duration.ofSeconds(30));
            String payload = KafkaProbe.value(created);
            assertThat(payload).doesNotContain(token).doesNotContain(sessionId).contains("\"session_ref\": \"s-");
        }
        assertThat(logLines).as("the sign-in is logged, by reference").anyMatch(line -> line.contains("signed in") && line.contains(userId));
        assertThat(logLines).noneMatch(line -> line.contains(token) || line.contains(sessionId));
    }

    @Test
    void badInputIsA400OrA404AndStoresNothing() {
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"discordUserId\":\"nope\"}")
                .when().post("/users").then().statusCode(400).contentType("application/problem+json");
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"discordUserId\":")
                .when().post("/users").then().statusCode(400).contentType("application/problem+json");
        given().auth().oauth2(Tokens.bot()).when().post("/users/{id}/sessions", UUID.randomUUID())
                .then().statusCode(404).contentType("application/problem+json");
        given().auth().oauth2(Tokens.bot()).when().post("/users/{id}/sessions", "not-a-uuid")
                .then().statusCode(400).contentType("application/problem+json");
        given().auth().oauth2(Tokens.user("1")).contentType(ContentType.JSON).body("{\"discordUserId\":\"123456789012345678\"}")
                .when().post("/users").then().statusCode(403);

        assertThat(db.count("select count(*) from app_user where discord_user_id = 'nope'")).isZero();
    }

    /** A bot token can open a session for any user (the bot is the identity broker); a user's token never can, not even its own. */
    @Test
    void aUserTokenCanNeverMintASession() {
        String discordId = Snowflakes.random();
        String userId = register(discordId).then().statusCode(201).extract().path("userId");
        given().auth().oauth2(Tokens.user(discordId)).when().post("/users/{id}/sessions", userId)
                .then().statusCode(403).contentType("application/problem+json");
        given().auth().oauth2(Tokens.user(Snowflakes.random())).when().post("/users/{id}/sessions", userId)
                .then().statusCode(403).contentType("application/problem+json");
        given().auth().oauth2(Tokens.admin()).when().post("/users/{id}/sessions", userId)
                .then().statusCode(403).contentType("application/problem+json");
        given().when().post("/users/{id}/sessions", userId).then().statusCode(401).contentType("application/problem+json");
        assertThat(db.count("select count(*) from user_session where user_id = ?::uuid", userId)).isZero();
    }

    private static io.restassured.response.Response register(String discordId) {
        return given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"discordUserId\":\"" + discordId + "\"}")
                .when().post("/users");
    }
}
