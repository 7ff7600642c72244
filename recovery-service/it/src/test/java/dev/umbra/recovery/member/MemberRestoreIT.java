package dev.umbra.recovery.member;

import static dev.umbra.recovery.RecoveryFixtures.discordShape;
import static dev.umbra.recovery.RecoveryFixtures.events;
import static dev.umbra.recovery.RecoveryFixtures.grant;
import static dev.umbra.recovery.RecoveryFixtures.onDiscord;
import static dev.umbra.recovery.RecoveryFixtures.structure;
import static dev.umbra.recovery.RecoveryFixtures.takeSnapshot;
import static dev.umbra.recovery.RecoveryFixtures.WAIT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.umbra.devstack.DiscordSandbox;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.recovery.snapshot.GuildStructure;
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
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A member's roles back from a snapshot, on plans that include it, against the Discord sandbox. */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "recovery"), @ResourceArg(name = "outbox", value = "recovery")})
class MemberRestoreIT {

    @InjectDevstack
    Database db;

    @InjectDevstack
    DiscordSandbox discord;

    private String guild;
    private GuildStructure saved;
    private String member;
    private UUID snapshot;

    /** The member had mod and vip; on Discord now they have none, and vip is gone. */
    @BeforeEach
    void aMemberWhoLostTheirRoles() {
        discord.recover();
        guild = Snowflakes.random();
        saved = structure(guild);
        member = saved.members().get(0).id();
        snapshot = takeSnapshot(guild, saved);
        List<GuildStructure.Member> members = new ArrayList<>(List.of(new GuildStructure.Member(member, List.of())));
        discord.guilds().put(guild, discordShape(new GuildStructure(saved.roles().subList(0, 3), saved.channels(), members)));
    }

    @Test
    void aPremiumGuildsMemberGetsBackTheRolesThatStillExistOnce() {
        grant(db, guild, "PREMIUM");
        try (KafkaProbe members = KafkaProbe.read(Topics.of(Aggregates.MEMBER))) {
            restore(member, snapshot).then().statusCode(200).body("roles", equalTo(List.of(saved.roles().get(1).id())));
            restore(member, snapshot).then().statusCode(200);

            JsonNode now = onDiscord(discord, guild).path("members").get(0);
            assertThat(now.path("roles").toString()).isEqualTo("[\"" + saved.roles().get(1).id() + "\"]");
            await().atMost(WAIT).until(() -> events(members, "MemberRestored", guild).size() == 2);
            assertThat(KafkaProbe.value(events(members, "MemberRestored", guild).get(0)).replace(" ", ""))
                    .contains("\"restored_roles\":[\"" + saved.roles().get(1).id() + "\"]");
        }
    }

    @Test
    void aMemberCaughtInAnAntiNukeBurstSinceTheSnapshotIsRefusedTheirRolesFromIt() {
        grant(db, guild, "PREMIUM");
        db.execute("""
                insert into anti_nuke_incident (id, guild_id, actor_id, pattern, first_at, last_at, triggered_at, acted)
                values (?, ?, ?, 'ROLE_DELETE', now() - interval '5 seconds', now(), now(), true)""", UUID.randomUUID(), guild, member);

        restore(member, snapshot).then().statusCode(409).contentType("application/problem+json")
                .body("detail", containsString("anti-nuke"));
        assertThat(discord.guilds().changes(guild)).isEmpty();
    }

    @Test
    void aPlanWithoutMemberRestoreAnUnknownMemberAndDiscordDownOrRefusingAreProblems() {
        restore(member, snapshot).then().statusCode(403).contentType("application/problem+json");
        grant(db, guild, "PREMIUM");
        restore(Snowflakes.random(), snapshot).then().statusCode(404).contentType("application/problem+json");
        restore(member, UUID.randomUUID()).then().statusCode(404).contentType("application/problem+json");
        discord.fail(1);
        restore(member, snapshot).then().statusCode(503).contentType("application/problem+json")
                .body("detail", equalTo("Discord is unavailable or did not answer: try again later"));
        // Discord's own words stay in the log: the caller gets ours
        discord.reject(1);
        restore(member, snapshot).then().statusCode(502).contentType("application/problem+json")
                .body("detail", equalTo("Discord refused the call (403): the bot lacks a permission it needs in this guild"));
        assertThat(discord.guilds().changes(guild)).isEmpty();
    }

    private Response restore(String memberId, UUID snapshotId) {
        return given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"snapshotId\": \"" + snapshotId + "\"}")
                .when().post("/guilds/{g}/members/{m}/restore", guild, memberId);
    }
}
