package dev.umbra.recovery.antinuke;

import static dev.umbra.recovery.RecoveryFixtures.discordShape;
import static dev.umbra.recovery.RecoveryFixtures.events;
import static dev.umbra.recovery.RecoveryFixtures.grant;
import static dev.umbra.recovery.RecoveryFixtures.onDiscord;
import static dev.umbra.recovery.RecoveryFixtures.structure;
import static dev.umbra.recovery.RecoveryFixtures.WAIT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.umbra.devstack.DiscordSandbox;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.platform.workqueue.WorkItem;
import dev.umbra.platform.workqueue.WorkQueues;
import dev.umbra.recovery.discord.BotUser;
import dev.umbra.recovery.discord.BotUsers;
import dev.umbra.recovery.snapshot.GuildStructure;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Metrics;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusMock;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Audit-log entries from the bot to AntiNukeTriggered, and on plans with anti-nuke to the suspects' roles taken and a snapshot. */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "recovery"), @ResourceArg(name = "outbox", value = "recovery")})
class AntiNukeIT {

    @InjectDevstack
    Database db;

    @InjectDevstack
    DiscordSandbox discord;

    @Inject
    WorkQueues queues;

    private static final ObjectMapper JSON = new ObjectMapper();
    /** A minute before the class loaded: bursts from then on are recent enough to be responded to. */
    private static final Instant T = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(60);

    private String guild;
    private String actor;

    @BeforeEach
    void aGuild() {
        discord.recover();
        guild = Snowflakes.random();
        actor = Snowflakes.random();
    }

    private ObjectNode entry(String entryId, String action, String actorId, long second) {
        return JSON.createObjectNode().put("entryId", entryId).put("action", action).put("actorId", actorId)
                .put("targetId", Snowflakes.random()).put("occurredAt", T.plusSeconds(second).toString());
    }

    private Response forward(ObjectNode... entries) {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode list = body.putArray("entries");
        for (ObjectNode entry : entries) {
            list.add(entry);
        }
        return given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body(body.toString())
                .when().post("/guilds/{g}/audit-log-entries", guild);
    }

    private ObjectNode deletion(long second) {
        return entry(Snowflakes.random(), "CHANNEL_DELETE", actor, second);
    }

    private void aPlanWithAntiNukeAndTheActorAMemberWithARole() {
        grant(db, guild, "PRO");
        GuildStructure saved = structure(guild);
        List<GuildStructure.Member> members = new ArrayList<>(saved.members());
        members.add(new GuildStructure.Member(actor, List.of(saved.roles().get(1).id())));
        discord.guilds().put(guild, discordShape(new GuildStructure(saved.roles(), saved.channels(), members)));
    }

    /** The actor's bans at 0 s, 1 s, and so on. */
    private ObjectNode[] bans(int count) {
        ObjectNode[] bans = new ObjectNode[count];
        for (int i = 0; i < count; i++) {
            bans[i] = entry(Snowflakes.random(), "MEMBER_BAN_ADD", actor, i);
        }
        return bans;
    }

    /** The guild's anti-nuke events as the outbox numbered them, whether Kafka has them yet or not. */
    private long antiNukeEvents() {
        return db.count("select last_sequence from aggregate_sequence where aggregate_type = ? and aggregate_id = ?", Aggregates.ANTI_NUKE, guild);
    }

    @Test
    void justUnderTheThresholdOrSpreadOverMoreThanTheWindowOrRepeatedEntriesTriggerNothing() {
        forward(deletion(0), deletion(9)).then().statusCode(202).body("triggered", equalTo(List.of()));
        forward(deletion(20)).then().statusCode(202).body("triggered", equalTo(List.of()));
        ObjectNode repeated = deletion(21);
        forward(repeated, repeated).then().statusCode(202).body("triggered", equalTo(List.of()));
        forward(repeated).then().statusCode(202).body("triggered", equalTo(List.of()));
        // four bans of five: under the mass-ban threshold
        List<ObjectNode> bans = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            bans.add(entry(Snowflakes.random(), "MEMBER_BAN_ADD", actor, 30 + i));
        }
        forward(bans.toArray(ObjectNode[]::new)).then().statusCode(202).body("triggered", equalTo(List.of()));
        assertThat(db.count("select count(*) from audit_log_entry where guild_id = ?", guild)).isEqualTo(8);
        assertThat(db.count("select count(*) from anti_nuke_incident where guild_id = ?", guild)).isZero();
    }

    @Test
    void aBurstSpanningRequestsTriggersOnceAndAPlanWithoutAntiNukeDetectsButDoesNotAct() {
        try (KafkaProbe antiNuke = KafkaProbe.read(Topics.of(Aggregates.ANTI_NUKE))) {
            forward(deletion(0), deletion(1)).then().statusCode(202).body("triggered", equalTo(List.of()));
            // the third deletion comes in a later request, as after a restart of the service: the window is in the database
            forward(deletion(2)).then().statusCode(202).body("triggered", equalTo(List.of("mass-channel-deletion")));
            forward(deletion(3), deletion(8), deletion(15)).then().statusCode(202).body("triggered", equalTo(List.of()));
            // another actor's burst is another burst
            String other = Snowflakes.random();
            forward(entry(Snowflakes.random(), "CHANNEL_DELETE", other, 4), entry(Snowflakes.random(), "CHANNEL_DELETE", other, 5),
                    entry(Snowflakes.random(), "CHANNEL_DELETE", other, 6)).then().statusCode(202)
                    .body("triggered", equalTo(List.of("mass-channel-deletion")));

            await().atMost(WAIT).until(() -> events(antiNuke, "AntiNukeTriggered", guild).size() == 2);
            assertThat(events(antiNuke, "AntiNukeTriggered", guild)).extracting(KafkaProbe::value)
                    .anySatisfy(value -> assertThat(value).contains(actor).contains("mass-channel-deletion"));
            assertThat(db.count("select count(*) from work_item where queue = 'anti-nuke-response' and payload->>'guild_id' = ?", guild))
                    .isZero();
            assertThat(db.count("select count(*) from snapshot where guild_id = ? and trigger = 'ANTI_NUKE'", guild)).isZero();
        }
    }

    @Test
    void aBurstWhoseEntriesArriveOutOfOrderTriggersOnce() {
        // the bot forwards the latest deletion first, then the two before it
        forward(deletion(9)).then().statusCode(202).body("triggered", equalTo(List.of()));
        forward(deletion(0), deletion(1)).then().statusCode(202).body("triggered", equalTo(List.of("mass-channel-deletion")));
        // late entries of the same burst, before or within it, extend it
        forward(deletion(-3), deletion(5)).then().statusCode(202).body("triggered", equalTo(List.of()));
        assertThat(db.count("select count(*) from anti_nuke_incident where guild_id = ?", guild)).isOne();
    }

    @Test
    void aBurstForwardedAPageAtATimeNewestFirstOrWithALateEarlierEntryTriggersOnce() {
        // the bot reads the audit log a page at a time, newest first; in time order the actor paused only 9 s
        forward(deletion(2), deletion(1), deletion(0)).then().statusCode(202).body("triggered", equalTo(List.of("mass-channel-deletion")));
        forward(deletion(13), deletion(12), deletion(11)).then().statusCode(202).body("triggered", equalTo(List.of()));
        // another actor's burst in order, then an entry 9 s before it that makes a burst with its first two
        String other = Snowflakes.random();
        forward(entry(Snowflakes.random(), "CHANNEL_DELETE", other, 0), entry(Snowflakes.random(), "CHANNEL_DELETE", other, 1),
                entry(Snowflakes.random(), "CHANNEL_DELETE", other, 2)).then().statusCode(202)
                .body("triggered", equalTo(List.of("mass-channel-deletion")));
        forward(entry(Snowflakes.random(), "CHANNEL_DELETE", other, -9)).then().statusCode(202).body("triggered", equalTo(List.of()));

        assertThat(db.count("select count(*) from anti_nuke_incident where guild_id = ? and actor_id = ?", guild, actor)).isOne();
        assertThat(db.count("select count(*) from anti_nuke_incident where guild_id = ? and actor_id = ?", guild, other)).isOne();
        assertThat(antiNukeEvents()).as("one AntiNukeTriggered for each actor").isEqualTo(2);
    }

    @Test
    void onAPlanWithAntiNukeTheSuspectLosesTheirRolesAndTheGuildIsSnapshotted() {
        aPlanWithAntiNukeAndTheActorAMemberWithARole();
        try (KafkaProbe antiNuke = KafkaProbe.read(Topics.of(Aggregates.ANTI_NUKE))) {
            forward(bans(7)).then().statusCode(202).body("triggered", equalTo(List.of("mass-ban")));

            await().atMost(WAIT).until(() -> events(antiNuke, "AntiNukeActioned", guild).size() == 1);
            assertThat(KafkaProbe.value(events(antiNuke, "AntiNukeActioned", guild).get(0)))
                    .contains("roles removed from 1 suspect").contains("snapshot taken").doesNotContain(actor);
            assertThat(events(antiNuke, "AntiNukeTriggered", guild)).hasSize(1);
            onDiscord(discord, guild).path("members").forEach(member -> {
                if (member.path("user").path("id").asText().equals(actor)) {
                    assertThat(member.path("roles")).isEmpty();
                }
            });
            assertThat(discord.guilds().changes(guild)).containsExactly("PATCH /api/v10/guilds/" + guild + "/members/" + actor);
            assertThat(db.count("select count(*) from snapshot where guild_id = ? and trigger = 'ANTI_NUKE'", guild)).isOne();
        }
    }

    @Test
    void aBotTokenDiscordRefusesForMoreTriesThanAResponseHasIsWaitedOutAndTheSuspectStillLosesTheirRoles() {
        aPlanWithAntiNukeAndTheActorAMemberWithARole();
        // a first forward, which triggers nothing, has the service ask Discord who its bot is before the token is refused
        forward(deletion(0)).then().statusCode(202);
        // the queue dead-letters a response after 8 failed tries of its own: a refused token is no fault of the response's
        discord.refuseToken(9);
        try (KafkaProbe antiNuke = KafkaProbe.read(Topics.of(Aggregates.ANTI_NUKE))) {
            forward(bans(7)).then().statusCode(202).body("triggered", equalTo(List.of("mass-ban")));
            await().atMost(WAIT).until(() -> events(antiNuke, "AntiNukeActioned", guild).size() == 1);
            assertThat(KafkaProbe.value(events(antiNuke, "AntiNukeActioned", guild).get(0))).contains("roles removed from 1 suspect");
        }
    }

    @Test
    void aBurstThatEndedLongerAgoThanRespondWithinIsAnnouncedButNobodyLosesRolesForIt() {
        aPlanWithAntiNukeAndTheActorAMemberWithARole();
        // a page of the log from an hour ago, forwarded late (the bot restarting, say)
        forward(deletion(-3_600), deletion(-3_599), deletion(-3_598)).then().statusCode(202)
                .body("triggered", equalTo(List.of("mass-channel-deletion")));

        assertThat(db.text("select cast(acted as text) from anti_nuke_incident where guild_id = ?", guild)).isEqualTo("false");
        assertThat(db.count("select count(*) from work_item where queue = ? and payload ->> 'guild_id' = ?", AntiNukeResponse.QUEUE, guild))
                .isZero();
        await().atMost(WAIT).until(() -> antiNukeEvents() == 1);
        assertThat(discord.guilds().changes(guild)).isEmpty();
    }

    @Test
    void theBurstsOfUmbrasOwnBotAreStoredButNeverJudged() {
        grant(db, guild, "PRO");
        // the user Discord says the bot token belongs to: nothing in the service's configuration names it
        String ownBot = DiscordSandbox.BOT_USER_ID;
        forward(entry(Snowflakes.random(), "CHANNEL_DELETE", ownBot, 0), entry(Snowflakes.random(), "CHANNEL_DELETE", ownBot, 1),
                entry(Snowflakes.random(), "CHANNEL_DELETE", ownBot, 2)).then().statusCode(202).body("triggered", equalTo(List.of()));

        assertThat(db.count("select count(*) from audit_log_entry where guild_id = ? and actor_id = ?", guild, ownBot)).isEqualTo(3);
        assertThat(db.count("select count(*) from anti_nuke_incident where guild_id = ?", guild)).isZero();
    }

    @Test
    void theBurstsOfABotTheDeploymentTrustsAreStoredButNeverJudged() {
        grant(db, guild, "PRO");
        String trusted = "100000000000000043"; // recovery.anti-nuke.exempt-actors of the test profile
        forward(entry(Snowflakes.random(), "ROLE_DELETE", trusted, 0), entry(Snowflakes.random(), "ROLE_DELETE", trusted, 1),
                entry(Snowflakes.random(), "ROLE_DELETE", trusted, 2)).then().statusCode(202).body("triggered", equalTo(List.of()));

        assertThat(db.count("select count(*) from audit_log_entry where guild_id = ? and actor_id = ?", guild, trusted)).isEqualTo(3);
        assertThat(db.count("select count(*) from anti_nuke_incident where guild_id = ?", guild)).isZero();
    }

    @Test
    void aResponseTriedAgainAfterItCommittedButBeforeItWasRecordedDoneActsOnce() {
        aPlanWithAntiNukeAndTheActorAMemberWithARole();
        try (KafkaProbe antiNuke = KafkaProbe.read(Topics.of(Aggregates.ANTI_NUKE))) {
            forward(bans(5)).then().statusCode(202).body("triggered", equalTo(List.of("mass-ban")));
            String incident = db.text("select cast(id as text) from anti_nuke_incident where guild_id = ?", guild);
            String itemStatus = "select status from work_item where queue = 'anti-nuke-response' and item_key = ?";
            await().atMost(WAIT).until(() -> "done".equals(db.text(itemStatus, incident)));
            await().atMost(WAIT).until(() -> events(antiNuke, "AntiNukeActioned", guild).size() == 1);

            // as if the worker had died after the response's transaction committed, before the queue recorded the item
            // done: the lease runs out and another worker takes the item again
            db.execute("update work_item set status = 'leased', lease_until = now() - interval '1 second', "
                    + "lease_token = nextval('work_item_lease_token'), try_started = true, finished_at = null "
                    + "where queue = 'anti-nuke-response' and item_key = ?", incident);
            await().atMost(WAIT).until(() -> "done".equals(db.text(itemStatus, incident)));

            assertThat(db.count("select count(*) from snapshot where guild_id = ? and trigger = 'ANTI_NUKE'", guild)).isOne();
            assertThat(antiNukeEvents()).as("AntiNukeTriggered and one AntiNukeActioned").isEqualTo(2);
            assertThat(events(antiNuke, "AntiNukeActioned", guild)).hasSize(1);
            assertThat(discord.guilds().changes(guild)).as("the suspect's roles taken once")
                    .containsExactly("PATCH /api/v10/guilds/" + guild + "/members/" + actor);
        }
    }

    @Test
    void aReadOfTheGuildLongerThanTheLeaseKeepsTheResponseItsOwnAndAnotherReplicaCannotTakeItOver() throws Throwable {
        aPlanWithAntiNukeAndTheActorAMemberWithARole();
        // the lease is 5 s in tests; the response's read of the guild (roles, channels, members) takes 3 × 2 s
        discord.answerAfter(Duration.ofSeconds(2));
        forward(bans(5)).then().statusCode(202).body("triggered", equalTo(List.of("mass-ban")));
        String incident = db.text("select cast(id as text) from anti_nuke_incident where guild_id = ?", guild);
        await().atMost(WAIT).until(() -> "leased".equals(db.text("select status from work_item where queue = 'anti-nuke-response' and item_key = ?",
                incident)));
        Instant readDone = Instant.now().plusSeconds(9);
        while (Instant.now().isBefore(readDone)) {
            List<WorkItem> claimed = VertxContextSupport.subscribeAndAwait(() -> queues.queue(AntiNukeResponse.QUEUE).claim());
            assertThat(claimed).as("what another replica claims").extracting(WorkItem::key).doesNotContain(incident);
            Thread.sleep(250);
        }

        discord.answerAfter(Duration.ZERO);
        await().atMost(WAIT).until(() -> db.count("select count(*) from snapshot where guild_id = ? and trigger = 'ANTI_NUKE'", guild) == 1);
        assertThat(discord.guilds().changes(guild)).as("the suspect's roles taken once").containsExactly("PATCH /api/v10/guilds/" + guild + "/members/" + actor);
    }

    @Test
    void whileDiscordsCircuitIsOpenForwardsAnswer503AndTheDatabaseCircuitStaysClosed() {
        QuarkusMock.installMockForType(BotUsers.behindAnOpenCircuit(), BotUser.class);
        for (int i = 0; i < 20; i++) {
            forward(deletion(i)).then().statusCode(503).contentType("application/problem+json")
                    .body("detail", containsString("Discord is unavailable"));
        }
        assertThat(Metrics.scrape().sum("umbra_database_circuit_open")).as("the database's circuit").isZero();
        assertThat(db.count("select count(*) from audit_log_entry where guild_id = ?", guild)).as("nothing stored").isZero();
        given().auth().oauth2(Tokens.bot()).when().get("/guilds/{g}/snapshots", guild).then().statusCode(200);
    }

    @Test
    void malformedEntriesAreAProblem() {
        forward(entry("not-an-id", "CHANNEL_DELETE", actor, 0)).then().statusCode(400).contentType("application/problem+json");
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"entries\": []}")
                .when().post("/guilds/{g}/audit-log-entries", guild).then().statusCode(400).contentType("application/problem+json");
    }
}
