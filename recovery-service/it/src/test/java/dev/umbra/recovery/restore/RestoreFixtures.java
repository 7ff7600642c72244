package dev.umbra.recovery.restore;

import static dev.umbra.recovery.RecoveryFixtures.WAIT;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

import dev.umbra.recovery.snapshot.GuildStructure;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

final class RestoreFixtures {

    private RestoreFixtures() {
    }

    static Response requestRestore(String guildId, UUID snapshotId) {
        return given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"snapshotId\": \"" + snapshotId + "\"}")
                .when().post("/guilds/{g}/restores", guildId);
    }

    static UUID restore(String guildId, UUID snapshotId) {
        return UUID.fromString(requestRestore(guildId, snapshotId).then().statusCode(202).extract().path("id"));
    }

    static io.restassured.path.json.JsonPath job(String guildId, UUID jobId) {
        return given().auth().oauth2(Tokens.bot()).when().get("/guilds/{g}/restores/{id}", guildId, jobId).then().statusCode(200)
                .extract().jsonPath();
    }

    static io.restassured.path.json.JsonPath awaitFinished(String guildId, UUID jobId) {
        await().atMost(WAIT).until(() -> List.of("COMPLETED", "FAILED").contains(job(guildId, jobId).getString("status")));
        return job(guildId, jobId);
    }

    /** The guild after a nuke: every role but @everyone and every channel gone, a nuker's role and channel added, nobody keeps a role. */
    static GuildStructure nuked(String guildId, GuildStructure before) {
        String nukerRole = Snowflakes.random();
        List<GuildStructure.Member> members = new ArrayList<>();
        before.members().forEach(member -> members.add(new GuildStructure.Member(member.id(), List.of())));
        members.add(new GuildStructure.Member(Snowflakes.random(), List.of(nukerRole)));
        return new GuildStructure(List.of(before.roles().get(0), new GuildStructure.Role(nukerRole, "nuker", 0, "8", 5, false, false)),
                List.of(new GuildStructure.Channel(Snowflakes.random(), "nuked", 0, 0, null, null, List.of())), members);
    }
}
