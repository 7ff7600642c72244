package dev.umbra.guild.lifecycle;

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
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "guild"), @ResourceArg(name = "outbox", value = "guild")})
class GuildLifecycleIT {

    /** A time on Discord's clock: the calls below say when their events happened, relative to it. */
    private static final Instant T0 = Instant.parse("2026-11-28T09:00:00Z");


    @InjectDevstack
    Database db;
    private static final String OWNER = "223456789012345678";

    @Test
    void aKickIsPublishedOnceAndAReinstallWorks() {
        String guildId = Snowflakes.random();
        install(guildId).then().statusCode(201);
        kick(guildId).then().statusCode(200).body("status", equalTo("KICKED"));
        kick(guildId).then().statusCode(200).body("status", equalTo("KICKED"));
        install(guildId).then().statusCode(200).body("status", equalTo("INSTALLED"));

        assertThat(eventsOf(guildId, "BotInstalled", 2)).containsExactly("BotInstalled", "BotKicked", "BotInstalled");
    }

    @Test
    void anOwnerChangeIsPublishedOnceWithBothOwners() {
        String guildId = Snowflakes.random();
        String newOwner = Snowflakes.random();
        install(guildId).then().statusCode(201);
        changeOwner(guildId, newOwner).then().statusCode(200).body("ownerId", equalTo(newOwner));
        changeOwner(guildId, newOwner).then().statusCode(200).body("ownerId", equalTo(newOwner));
        kick(guildId).then().statusCode(200);

        assertThat(eventsOf(guildId, "BotKicked", 1)).containsExactly("BotInstalled", "GuildOwnerChanged", "BotKicked");
    }

    @Test
    void oneOwnerChangeSentSeveralTimesAtOnceIsAnsweredAsRepeatsAndPublishedOnce() throws Exception {
        for (int round = 0; round < 3; round++) {
            String guildId = Snowflakes.random();
            String newOwner = Snowflakes.random();
            install(guildId).then().statusCode(201);

            List<Integer> answers = Concurrently.run(4, caller -> changeOwner(guildId, newOwner).statusCode());

            assertThat(answers).as("round %d", round).containsOnly(200);
            assertThat(db.text("select owner_id from guild where guild_id = ?", guildId)).isEqualTo(newOwner);
            // the kick follows on the guild's partition: a second GuildOwnerChanged would come before it
            kick(guildId).then().statusCode(200);
            assertThat(eventsOf(guildId, "BotKicked", 1)).as("round %d", round).containsExactly("BotInstalled", "GuildOwnerChanged", "BotKicked");
        }
    }

    @Test
    void aDeletedGuildIsDeletedOnceAndCannotBeInstalledAgain() {
        String guildId = Snowflakes.random();
        install(guildId).then().statusCode(201);
        given().auth().oauth2(Tokens.bot()).when().delete("/guilds/{id}", guildId).then().statusCode(200).body("status", equalTo("DELETED"));
        given().auth().oauth2(Tokens.bot()).when().delete("/guilds/{id}", guildId).then().statusCode(200);
        install(guildId).then().statusCode(409).contentType("application/problem+json");
        changeOwner(guildId, Snowflakes.random()).then().statusCode(409).contentType("application/problem+json");

        assertThat(eventsOf(guildId, "GuildDeleted", 1)).containsExactly("BotInstalled", "GuildDeleted");
    }

    @Test
    void callsAboutAnUnknownGuildAre404AndStoreNothing() {
        String guildId = Snowflakes.random();
        kick(guildId).then().statusCode(404).contentType("application/problem+json");
        changeOwner(guildId, Snowflakes.random()).then().statusCode(404).contentType("application/problem+json");

        assertThat(db.count("select count(*) from guild where guild_id = ?", guildId)).isZero();
    }

    /** The bot's calls can overtake one another: a guild deleted before its install reached us stays deleted. */
    @Test
    void aDeleteThatOvertakesTheInstallKeepsTheGuildDeletedAndPublishesNothing() {
        String guildId = Snowflakes.random();
        given().auth().oauth2(Tokens.bot()).when().delete("/guilds/{id}", guildId).then().statusCode(200).body("status", equalTo("DELETED"));
        install(guildId).then().statusCode(409).contentType("application/problem+json");
        given().auth().oauth2(Tokens.bot()).when().get("/guilds/{id}", guildId).then().statusCode(200).body("status", equalTo("DELETED"));

        // a guild installed after it, on the same partition: once its event is there, anything published for the deleted one would be too
        String later = Snowflakes.onSamePartitionAs(guildId, 3);
        install(later).then().statusCode(201);
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.GUILD))) {
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> topic.seen().stream().anyMatch(r -> later.equals(r.key())));
            assertThat(topic.seen().stream().filter(r -> guildId.equals(r.key())).toList()).isEmpty();
        }
    }

    @Test
    void anInstallAndADeleteOfANewGuildAtOnceAlwaysLeaveItDeleted() throws Exception {
        for (int round = 0; round < 10; round++) {
            String guildId = Snowflakes.random();
            List<Integer> answers = Concurrently.run(2, caller -> caller == 0 ? install(guildId).statusCode()
                    : given().auth().oauth2(Tokens.bot()).when().delete("/guilds/{id}", guildId).statusCode());

            assertThat(answers.get(1)).as("the delete, round %d", round).isEqualTo(200);
            assertThat(answers.get(0)).as("the install, round %d", round).isIn(201, 409);
            assertThat(db.text("select status from guild where guild_id = ?", guildId)).as("round %d", round).isEqualTo("DELETED");
            if (answers.get(0) == 201) {
                assertThat(eventsOf(guildId, "GuildDeleted", 1)).containsExactly("BotInstalled", "GuildDeleted");
            }
        }
    }

    /** Calls that say when their event happened on Discord are applied in Discord's order, whatever order they come in. */
    @Test
    void anInstallTriedAgainAfterTheKickThatFollowedItOnDiscordChangesNothing() {
        String guildId = Snowflakes.random();
        install(guildId, T0).then().statusCode(201);
        kick(guildId, T0.plusSeconds(30)).then().statusCode(200).body("status", equalTo("KICKED"));

        // the install's retry after a 503, arriving after the kick
        install(guildId, T0).then().statusCode(200).body("status", equalTo("KICKED"));
        // an owner change of before the kick, tried again after it: who owns the guild is not overtaken by the bot's presence
        String newOwner = Snowflakes.random();
        changeOwner(guildId, newOwner, T0.plusSeconds(10)).then().statusCode(200).body("ownerId", equalTo(newOwner));
        changeOwner(guildId, OWNER, T0.plusSeconds(5)).then().statusCode(200).body("ownerId", equalTo(newOwner));

        install(guildId, T0.plusSeconds(60)).then().statusCode(200).body("status", equalTo("INSTALLED")).body("ownerId", equalTo(newOwner));
        assertThat(eventsOf(guildId, "BotInstalled", 2)).containsExactly("BotInstalled", "BotKicked", "GuildOwnerChanged", "BotInstalled");
    }

    @Test
    void aKickThatOvertookTheInstallKeepsTheGuildKickedAndPublishesNothingForEither() {
        String guildId = Snowflakes.random();
        kick(guildId, T0.plusSeconds(30)).then().statusCode(200).body("status", equalTo("KICKED"));
        install(guildId, T0).then().statusCode(200).body("status", equalTo("KICKED"));
        assertThat(db.text("select status from guild where guild_id = ?", guildId)).isEqualTo("KICKED");

        // added again later: the first BotInstalled anyone hears of, with its installer the owner
        install(guildId, T0.plusSeconds(60)).then().statusCode(200).body("status", equalTo("INSTALLED")).body("ownerId", equalTo(OWNER));
        // a kick after it, on the guild's partition: once it is there, anything published before it is too
        kick(guildId, T0.plusSeconds(90)).then().statusCode(200);
        assertThat(eventsOf(guildId, "BotKicked", 1)).containsExactly("BotInstalled", "BotKicked");
    }

    @Test
    void anOccurredAtThatIsNoInstantIsA400AndChangesNothing() {
        String guildId = Snowflakes.random();
        given().auth().oauth2(Tokens.bot()).queryParam("occurredAt", "yesterday").when().delete("/guilds/{id}/installation", guildId)
                .then().statusCode(400).contentType("application/problem+json");
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                .body("{\"installerUserId\":\"" + OWNER + "\",\"occurredAt\":\"yesterday\"}")
                .when().post("/guilds/{id}/installation", guildId).then().statusCode(400).contentType("application/problem+json");
        // instants Java parses, past the year 9999 (the last beyond what PostgreSQL stores: it answered 500)
        for (String farOff : List.of("+10000-01-01T00:00:00Z", "+1000000-01-01T00:00:00Z")) {
            given().auth().oauth2(Tokens.bot()).queryParam("occurredAt", farOff).when().delete("/guilds/{id}/installation", guildId)
                    .then().statusCode(400).contentType("application/problem+json");
            given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                    .body("{\"installerUserId\":\"" + OWNER + "\",\"occurredAt\":\"" + farOff + "\"}")
                    .when().post("/guilds/{id}/installation", guildId).then().statusCode(400).contentType("application/problem+json");
        }
        assertThat(db.count("select count(*) from guild where guild_id = ?", guildId)).isZero();
    }

    /** A time ahead of the service's clock by more than Discord's could be would overtake every later call: refused. */
    @Test
    void anOccurredAtInTheFutureIsA400AndChangesNothing() {
        String guildId = Snowflakes.random();
        Instant tomorrow = Instant.now().plus(Duration.ofDays(1));
        install(guildId, tomorrow).then().statusCode(400).contentType("application/problem+json");
        kick(guildId, tomorrow).then().statusCode(400).contentType("application/problem+json");
        assertThat(db.count("select count(*) from guild where guild_id = ?", guildId)).isZero();

        install(guildId, T0).then().statusCode(201);
        changeOwner(guildId, Snowflakes.random(), tomorrow).then().statusCode(400).contentType("application/problem+json");
        kick(guildId, tomorrow).then().statusCode(400);
        // a clock a little ahead of ours is Discord's, not a mistake
        String newOwner = Snowflakes.random();
        changeOwner(guildId, newOwner, Instant.now().plusSeconds(60)).then().statusCode(200).body("ownerId", equalTo(newOwner));
        given().auth().oauth2(Tokens.bot()).when().get("/guilds/{id}", guildId).then().body("status", equalTo("INSTALLED"));
    }

    @Test
    void anInvalidNewOwnerIsA400AndChangesNothing() {
        String guildId = Snowflakes.random();
        install(guildId).then().statusCode(201);
        changeOwner(guildId, "me").then().statusCode(400).contentType("application/problem+json");
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{}")
                .when().put("/guilds/{id}/owner", guildId).then().statusCode(400);

        given().auth().oauth2(Tokens.bot()).when().get("/guilds/{id}", guildId).then().body("ownerId", equalTo(OWNER));
    }

    /** The event types of the guild's records, read until {@code last} has been seen {@code times} times. */
    private static List<String> eventsOf(String guildId, String last, int times) {
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.GUILD))) {
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> topic.seen().stream()
                    .filter(r -> guildId.equals(r.key()) && last.equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)))
                    .count() >= times);
            return topic.seen().stream().filter(r -> guildId.equals(r.key()))
                    .map(r -> KafkaProbe.header(r, EventHeaders.EVENT_TYPE)).toList();
        }
    }

    private static Response install(String guildId) {
        return given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"installerUserId\":\"" + OWNER + "\"}")
                .when().post("/guilds/{id}/installation", guildId);
    }

    private static Response install(String guildId, Instant occurredAt) {
        return given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                .body("{\"installerUserId\":\"" + OWNER + "\",\"occurredAt\":\"" + occurredAt + "\"}")
                .when().post("/guilds/{id}/installation", guildId);
    }

    private static Response kick(String guildId, Instant occurredAt) {
        return given().auth().oauth2(Tokens.bot()).queryParam("occurredAt", occurredAt.toString()).when().delete("/guilds/{id}/installation", guildId);
    }

    private static Response changeOwner(String guildId, String ownerId, Instant occurredAt) {
        return given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                .body("{\"ownerId\":\"" + ownerId + "\",\"occurredAt\":\"" + occurredAt + "\"}")
                .when().put("/guilds/{id}/owner", guildId);
    }

    private static Response kick(String guildId) {
        return given().auth().oauth2(Tokens.bot()).when().delete("/guilds/{id}/installation", guildId);
    }

    private static Response changeOwner(String guildId, String ownerId) {
        return given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"ownerId\":\"" + ownerId + "\"}")
                .when().put("/guilds/{id}/owner", guildId);
    }
}
