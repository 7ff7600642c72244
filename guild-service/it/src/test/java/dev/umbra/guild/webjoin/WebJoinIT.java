package dev.umbra.guild.webjoin;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.events.licensing.LicenseCanceled;
import dev.umbra.events.licensing.LicenseDowngraded;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.events.licensing.LicenseSuspended;
import dev.umbra.testing.Concurrently;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.OutboxRecords;
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
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "guild"), @ResourceArg(name = "outbox", value = "guild")})
class WebJoinIT {

    @InjectDevstack
    Database db;

    private String guildId;
    private String owner;
    private UUID licenseId;

    @BeforeEach
    void installAGuild() {
        guildId = Snowflakes.random();
        owner = Snowflakes.random();
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"installerUserId\":\"" + owner + "\"}")
                .when().post("/guilds/{id}/installation", guildId).then().statusCode(201);
        licenseId = UUID.randomUUID();
        OutboxRecords.publish(new LicenseGranted(licenseId, guildId, "PRO"), Instant.now());
        awaitPlan("PRO", "ACTIVE");
    }

    @Test
    void aGuildWhosePlanHasNoWebJoinNeitherPublishesALinkNorTakesMembers() {
        String slug = slug();
        claim(owner, slug).then().statusCode(200);
        OutboxRecords.publish(new LicenseDowngraded(licenseId, "PRO", "FREE"), Instant.now());
        awaitPlan("FREE", "ACTIVE");

        String visitor = Snowflakes.random();
        join(visitor, slug).then().statusCode(403).contentType("application/problem+json");
        claim(owner, slug()).then().statusCode(403).contentType("application/problem+json");
        assertThat(db.count("select count(*) from member where discord_user_id = ?", visitor)).isZero();

        String freeGuild = Snowflakes.random();
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"installerUserId\":\"" + owner + "\"}")
                .when().post("/guilds/{id}/installation", freeGuild).then().statusCode(201);
        given().auth().oauth2(Tokens.discordUser(owner)).contentType(ContentType.JSON).body("{\"slug\":\"" + slug() + "\"}")
                .when().put("/guilds/{id}/web-join", freeGuild).then().statusCode(403).contentType("application/problem+json");
        assertThat(db.count("select count(*) from web_join_link where guild_id = ?", freeGuild)).isZero();
    }

    @Test
    void aSuspendedLicenseClosesTheLinkAndAGrantReopensIt() {
        String slug = slug();
        claim(owner, slug).then().statusCode(200);
        OutboxRecords.publish(new LicenseSuspended(licenseId, "BOT_KICKED"), Instant.now());
        awaitPlan("PRO", "SUSPENDED");
        join(Snowflakes.random(), slug).then().statusCode(403);

        OutboxRecords.publish(new LicenseGranted(licenseId, guildId, "PREMIUM"), Instant.now());
        awaitPlan("PREMIUM", "ACTIVE");
        join(Snowflakes.random(), slug).then().statusCode(201);
    }

    /** A replay from a dead-letter topic brings old events back late: they never overwrite newer ones, and a cancellation is final. */
    @Test
    void thePlanConvergesWhateverOrderTheEventsComeIn() {
        Instant granted = Instant.now().plusSeconds(1);
        List<UUID> published = List.of(
                OutboxRecords.publish(new LicenseGranted(licenseId, guildId, "PREMIUM"), granted.plusSeconds(10)),
                OutboxRecords.publish(new LicenseDowngraded(licenseId, "PREMIUM", "FREE"), granted.plusSeconds(20)),
                OutboxRecords.publish(new LicenseSuspended(licenseId, "PAYMENT_FAILED"), granted.plusSeconds(30)),
                OutboxRecords.publish(new LicenseGranted(licenseId, guildId, "PREMIUM"), granted.plusSeconds(10)),
                OutboxRecords.publish(new LicenseGranted(licenseId, guildId, "PRO"), granted));
        // every one applied, the two stale grants after the suspension too, before the plan is looked at
        await().atMost(Duration.ofSeconds(30)).until(() -> db.count("select count(distinct event_id) from processed_event where event_id = any(string_to_array(?, ',')::uuid[])",
                String.join(",", published.stream().map(UUID::toString).toList())) == published.size());
        awaitPlan("FREE", "SUSPENDED");

        Instant canceled = granted.plusSeconds(60);
        OutboxRecords.publish(new LicenseCanceled(licenseId), canceled);
        OutboxRecords.publish(new LicenseGranted(licenseId, guildId, "PREMIUM"), canceled.plusSeconds(1));
        awaitPlan("PREMIUM", "CANCELED");
        claim(owner, slug()).then().statusCode(403);
    }

    private void awaitPlan(String plan, String status) {
        await().atMost(Duration.ofSeconds(30)).until(() -> db.count(
                "select count(*) from license_plan where guild_id = ? and plan = ? and status = ?", guildId, plan, status) == 1);
    }

    @Test
    void aVisitorWhoJoinsTwiceIsOneMember() {
        String slug = slug();
        claim(owner, slug).then().statusCode(200).body("slug", equalTo(slug)).body("guildId", equalTo(guildId));
        String visitor = Snowflakes.random();
        String memberId = join(visitor, slug).then().statusCode(201).body("guildId", equalTo(guildId)).extract().path("memberId");
        join(visitor, slug).then().statusCode(200).body("memberId", equalTo(memberId));
        String marker = join(Snowflakes.random(), slug).then().statusCode(201).extract().path("memberId");

        assertThat(db.count("select count(*) from member where guild_id = ? and discord_user_id = ?", guildId, visitor)).isOne();
        try (KafkaProbe members = KafkaProbe.read(Topics.of(Aggregates.MEMBER))) {
            var joined = members.awaitRecord(r -> memberId.equals(r.key()), Duration.ofSeconds(30));
            assertThat(KafkaProbe.header(joined, EventHeaders.EVENT_TYPE)).isEqualTo("MemberJoinedViaWebJoin");
            assertThat(KafkaProbe.value(joined)).contains(slug).contains(guildId).doesNotContain(visitor);
            members.awaitRecord(r -> marker.equals(r.key()), Duration.ofSeconds(30));
            assertThat(members.seen()).filteredOn(r -> memberId.equals(r.key())).hasSize(1);
        }
    }

    @Test
    void aVisitorJoiningFromTwoTabsAtOnceIsOneMemberAndTheSecondAnswerARepeat() throws Exception {
        String slug = slug();
        claim(owner, slug).then().statusCode(200);
        String visitor = Snowflakes.random();
        List<Response> answers = Concurrently.run(4, tab -> join(visitor, slug));

        assertThat(answers).extracting(Response::statusCode).containsOnlyOnce(201).allMatch(status -> status == 201 || status == 200);
        assertThat(answers).extracting(answer -> answer.path("memberId").toString()).containsOnly(answers.get(0).path("memberId").toString());
        assertThat(db.count("select count(*) from member where guild_id = ? and discord_user_id = ?", guildId, visitor)).isOne();
    }

    @Test
    void anOwnerClaimingOneSlugFromTwoTabsAtOnceGetsItInBoth() throws Exception {
        String slug = slug();
        List<Response> answers = Concurrently.run(4, tab -> claim(owner, slug));

        assertThat(answers).extracting(Response::statusCode).containsOnly(200);
        assertThat(db.text("select guild_id from web_join_link where slug = ?", slug)).isEqualTo(guildId);
    }

    @Test
    void aTokenThatNamesNoDiscordAccountNeitherSetsTheLinkNorJoins() {
        String slug = slug();
        // the person's Umbra user id only (a token as billing reads it), or their Discord id as the subject with no claim
        for (String token : List.of(Tokens.user(UUID.randomUUID().toString()), Tokens.user(owner))) {
            given().auth().oauth2(token).contentType(ContentType.JSON).body("{\"slug\":\"" + slug + "\"}")
                    .when().put("/guilds/{id}/web-join", guildId)
                    .then().statusCode(403).contentType("application/problem+json").body("detail", containsString("discord_user_id"));
        }
        assertThat(db.count("select count(*) from web_join_link where guild_id = ?", guildId)).isZero();

        claim(owner, slug).then().statusCode(200);
        String visitor = Snowflakes.random();
        given().auth().oauth2(Tokens.user(visitor)).when().post("/web-join/{slug}/members", slug)
                .then().statusCode(403).contentType("application/problem+json");
        assertThat(db.count("select count(*) from member where discord_user_id = ?", visitor)).isZero();
    }

    @Test
    void onlyTheOwnerMaySetTheLink() {
        claim(Snowflakes.random(), slug()).then().statusCode(403).contentType("application/problem+json");
        given().contentType(ContentType.JSON).body("{\"slug\":\"" + slug() + "\"}")
                .when().put("/guilds/{id}/web-join", guildId).then().statusCode(401);
        assertThat(db.count("select count(*) from web_join_link where guild_id = ?", guildId)).isZero();
    }

    @Test
    void aSlugBelongsToOneGuild() {
        String slug = slug();
        claim(owner, slug).then().statusCode(200);
        claim(owner, slug).then().statusCode(200);

        String otherGuild = Snowflakes.random();
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"installerUserId\":\"" + owner + "\"}")
                .when().post("/guilds/{id}/installation", otherGuild).then().statusCode(201);
        OutboxRecords.publish(new LicenseGranted(UUID.randomUUID(), otherGuild, "PRO"), Instant.now());
        await().atMost(Duration.ofSeconds(30)).until(() -> db.count(
                "select count(*) from license_plan where guild_id = ? and status = 'ACTIVE'", otherGuild) == 1);
        given().auth().oauth2(Tokens.discordUser(owner)).contentType(ContentType.JSON).body("{\"slug\":\"" + slug + "\"}")
                .when().put("/guilds/{id}/web-join", otherGuild).then().statusCode(409).contentType("application/problem+json");
        assertThat(db.count("select count(*) from web_join_link where guild_id = ?", otherGuild)).isZero();
    }

    @Test
    void invalidSlugsAndUnknownLinksAreRejected() {
        claim(owner, "No Spaces").then().statusCode(400).contentType("application/problem+json");
        claim(owner, "ab").then().statusCode(400);
        claim(owner, "-leading-dash").then().statusCode(400);
        join(Snowflakes.random(), "no-such-link-" + ThreadLocalRandom.current().nextInt(1_000_000)).then().statusCode(404)
                .contentType("application/problem+json");
        assertThat(db.count("select count(*) from web_join_link where guild_id = ?", guildId)).isZero();
    }

    @Test
    void aKickedGuildTakesNoMembers() {
        String slug = slug();
        claim(owner, slug).then().statusCode(200);
        given().auth().oauth2(Tokens.bot()).when().delete("/guilds/{id}/installation", guildId).then().statusCode(200);

        String visitor = Snowflakes.random();
        join(visitor, slug).then().statusCode(409).contentType("application/problem+json");
        assertThat(db.count("select count(*) from member where discord_user_id = ?", visitor)).isZero();
    }

    private static String slug() {
        return "guild-" + Long.toString(ThreadLocalRandom.current().nextLong(Long.MAX_VALUE), 36);
    }

    private Response claim(String caller, String slug) {
        return given().auth().oauth2(Tokens.discordUser(caller)).contentType(ContentType.JSON).body("{\"slug\":\"" + slug + "\"}")
                .when().put("/guilds/{id}/web-join", guildId);
    }

    private static Response join(String visitor, String slug) {
        return given().auth().oauth2(Tokens.discordUser(visitor)).when().post("/web-join/{slug}/members", slug);
    }
}
