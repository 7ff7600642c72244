package dev.umbra.licensing.license;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.GuildOwnerChanged;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InboxProbe;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Metrics;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Who may read which license: refusals are problem+json; a user sees only guilds they own, as guild events say. */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "licensing"), @ResourceArg(name = "outbox", value = "licensing")})
class LicenseAccessIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    @InjectDevstack
    Database db;

    @InjectDevstack
    InboxProbe inbox;

    @Test
    void everyUnacceptableTokenIsA401Problem() {
        Tokens.unacceptable().forEach((why, request) -> request.when().get("/guilds/{id}/entitlements", Snowflakes.random())
                .then().statusCode(401).contentType("application/problem+json").header("WWW-Authenticate", "Bearer")
                .body("status", equalTo(401)));
    }

    /** The bot sends one token with every command: it is verified once, while a refused one is verified (and refused) every time. */
    @Test
    void aTokenIsVerifiedOnceWhileItLivesAndARefusedOneEveryTime() {
        // a token no test used before (Tokens memoizes the ones it mints)
        String bot = Tokens.mint("discord-bot-" + UUID.randomUUID(), "bot");
        double acceptedBefore = verifications("accepted");
        double refusedBefore = verifications("refused");
        for (int i = 0; i < 5; i++) {
            given().auth().oauth2(bot).when().get("/guilds/{id}/entitlements", Snowflakes.random()).then().statusCode(404);
            given().auth().oauth2(Tokens.forgedBot()).when().get("/guilds/{id}/entitlements", Snowflakes.random()).then().statusCode(401);
        }
        assertThat(verifications("accepted") - acceptedBefore).isEqualTo(1);
        assertThat(verifications("refused") - refusedBefore).isEqualTo(5);
    }

    private static double verifications(String outcome) {
        double count = Metrics.scrape().sum("umbra_jwt_verifications_total", "outcome=\"" + outcome + "\"");
        return Double.isNaN(count) ? 0 : count;
    }

    @Test
    void onlyTheBotReadsEntitlements() {
        given().auth().oauth2(Tokens.discordUser(Snowflakes.random())).when().get("/guilds/{id}/entitlements", Snowflakes.random())
                .then().statusCode(403).contentType("application/problem+json").body("status", equalTo(403));
        given().auth().oauth2(Tokens.admin()).when().get("/guilds/{id}/entitlements", Snowflakes.random())
                .then().statusCode(403).contentType("application/problem+json");
    }

    @Test
    void aUserReadsOnlyTheLicenseOfAGuildTheyOwn() {
        String guildId = Snowflakes.random();
        String owner = Snowflakes.random();
        OutboxRecords.publish(new BotInstalled(guildId, owner), Instant.now());
        await().atMost(TIMEOUT).untilAsserted(() -> readAs(Tokens.discordUser(owner), guildId).then().statusCode(200)
                .body("guildId", equalTo(guildId)));

        readAs(Tokens.discordUser(Snowflakes.random()), guildId).then().statusCode(403).contentType("application/problem+json");
        readAs(Tokens.discordUser(owner), Snowflakes.random()).then().statusCode(403).contentType("application/problem+json");
        // a token that does not name the owner's Discord account in its claim: their id as its subject is not enough
        readAs(Tokens.user(owner), guildId).then().statusCode(403).contentType("application/problem+json");
        readAs(Tokens.admin(), guildId).then().statusCode(200);
        readAs(Tokens.bot(), guildId).then().statusCode(200);

        String newOwner = Snowflakes.random();
        OutboxRecords.publish(new GuildOwnerChanged(guildId, owner, newOwner), Instant.now());
        await().atMost(TIMEOUT).untilAsserted(() -> readAs(Tokens.discordUser(newOwner), guildId).then().statusCode(200));
        readAs(Tokens.discordUser(owner), guildId).then().statusCode(403);
    }

    /**
     * Events of one guild in any order (a late replay from a dead-letter topic): the owner is the latest
     * change's, else the first installer; a reinstall by someone else changes nothing.
     */
    @Test
    void theOwnerConvergesWhateverOrderTheEventsComeIn() {
        String guildId = Snowflakes.random();
        String installer = Snowflakes.random();
        String owner = Snowflakes.random();
        Instant installed = Instant.now().minusSeconds(60);
        OutboxRecords.publish(new GuildOwnerChanged(guildId, installer, owner), installed.plusSeconds(10));
        OutboxRecords.publish(new BotInstalled(guildId, Snowflakes.random()), installed.plusSeconds(20));
        OutboxRecords.publish(new GuildOwnerChanged(guildId, "1", installer), installed.plusSeconds(5));
        OutboxRecords.publish(new BotInstalled(guildId, installer), installed);
        UUID marker = OutboxRecords.publish(new BotInstalled(guildId, Snowflakes.random()), installed.plusSeconds(30));
        inbox.awaitProcessed(marker);

        assertThat(db.text("select coalesce(changed_owner_id, first_installer_id) from guild_owner where guild_id = ?", guildId))
                .isEqualTo(owner);
        readAs(Tokens.discordUser(owner), guildId).then().statusCode(200);
        readAs(Tokens.discordUser(installer), guildId).then().statusCode(403);
    }

    /**
     * Two guild-service replicas whose clocks disagree: the later change in the guild's stream (its outbox's
     * sequence) stamped with the earlier time, and read first. The stream's order decides, not the clocks.
     */
    @Test
    void theOwnerFollowsTheGuildsStreamNotTheClocksThatStampedIt() {
        String guildId = Snowflakes.random();
        String installer = Snowflakes.random();
        String second = Snowflakes.random();
        String third = Snowflakes.random();
        Instant now = Instant.now();
        KafkaProbe.produceAll(List.of(
                OutboxRecords.record(new BotInstalled(guildId, installer), UUID.randomUUID(), now.minusSeconds(60), 1),
                OutboxRecords.record(new GuildOwnerChanged(guildId, second, third), UUID.randomUUID(), now.minusSeconds(30), 3),
                OutboxRecords.record(new GuildOwnerChanged(guildId, installer, second), UUID.randomUUID(), now.minusSeconds(20), 2)));
        UUID marker = OutboxRecords.publish(new BotInstalled(guildId, Snowflakes.random()), now);
        inbox.awaitProcessed(marker);

        readAs(Tokens.discordUser(third), guildId).then().statusCode(200);
        readAs(Tokens.discordUser(second), guildId).then().statusCode(403);
    }

    /** Many guilds at once, across partitions: each ends with its own owner and nobody else's. */
    @Test
    void concurrentGuildsEachKeepTheirOwnOwner() throws Exception {
        int guilds = 40;
        List<String> ids = java.util.stream.IntStream.range(0, guilds).mapToObj(i -> Snowflakes.random()).toList();
        List<String> owners = java.util.stream.IntStream.range(0, guilds).mapToObj(i -> Snowflakes.random()).toList();
        ExecutorService producers = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> sent = new java.util.ArrayList<>();
            for (int i = 0; i < guilds; i++) {
                int g = i;
                sent.add(producers.submit(() -> {
                    Instant at = Instant.now();
                    OutboxRecords.publish(new BotInstalled(ids.get(g), Snowflakes.random()), at);
                    OutboxRecords.publish(new GuildOwnerChanged(ids.get(g), null, owners.get(g)), at.plusMillis(1));
                }));
            }
            for (Future<?> future : sent) {
                future.get();
            }
        } finally {
            producers.shutdown();
        }
        await().atMost(TIMEOUT).until(() -> db.count("select count(*) from guild_owner where guild_id = any(string_to_array(?, ','))"
                + " and changed_owner_id is not null and first_installer_id is not null", String.join(",", ids)) == guilds);
        for (int i = 0; i < guilds; i++) {
            assertThat(db.text("select changed_owner_id from guild_owner where guild_id = ?", ids.get(i))).isEqualTo(owners.get(i));
        }
        readAs(Tokens.discordUser(owners.get(0)), ids.get(1)).then().statusCode(403);
    }

    private static io.restassured.response.Response readAs(String token, String guildId) {
        return given().auth().oauth2(token).when().get("/guilds/{id}/license", guildId);
    }
}
