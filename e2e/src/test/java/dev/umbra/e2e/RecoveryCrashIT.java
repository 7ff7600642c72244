package dev.umbra.e2e;

import static dev.umbra.e2e.SystemClient.eventTypes;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.umbra.devstack.DiscordSandbox;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.e2e.SystemClient.Installed;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * recovery-service killed (-9) and started again. In the middle of a restore, while a slow Discord has
 * made a few of its changes: the job is taken over once the dead worker's lease has run out and resumes
 * after its last finished step — a create whose answer the kill cut off is found by its name, not made
 * again — so the guild comes back as the snapshot had it (its role hierarchy too), with every change
 * made once. In the middle of an anti-nuke burst: the detector's window is in the database, so the
 * burst triggers once, across the restart.
 */
@FaultSuite
class RecoveryCrashIT {

    /** Slow enough that the kill lands mid-way through the eleven steps. */
    private static final Duration DISCORD_LATENCY = Duration.ofMillis(300);
    /** The dead worker's lease (1 min, renewed at each step), then a poll: the restarted service takes the job over. */
    private static final Duration TAKE_OVER = Duration.ofSeconds(150);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final LocalSystem system = RunningSystem.get();
    private final SystemClient umbra = new SystemClient();
    private final DiscordSandbox discord = umbra.discord();

    @AfterEach
    void discordAtFullSpeed() {
        discord.recover();
    }

    @AfterAll
    static void logsAreClean() {
        RunningSystem.assertCleanLogs();
    }

    @Test
    void aRestoreCutByAKillResumesAfterTheRestartAndMakesEachChangeOnce() throws IOException {
        SystemInvariants.Mark mark = SystemInvariants.mark();
        Installed installed = umbra.installed();
        String guild = installed.guildId();
        Structure saved = Structure.of(guild);
        String snapshot = given().baseUri(system.url("recovery")).auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                .body(Map.of("trigger", "MANUAL", "structure", saved.snapshot()))
                .when().post("/guilds/{id}/snapshots", guild).then().statusCode(201).extract().path("id");
        // nuked: every role but @everyone and every channel gone, the members stripped of their roles
        discord.guilds().put(guild, saved.nuked());
        discord.answerAfter(DISCORD_LATENCY);

        String job = given().baseUri(system.url("recovery")).auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                .body(Map.of("snapshotId", snapshot)).when().post("/guilds/{id}/restores", guild)
                .then().statusCode(202).extract().path("id");
        await().atMost(SystemClient.TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> restore(guild, job).getInt("doneSteps") >= 3);
        system.crash("recovery");
        int changesAtTheKill = discord.guilds().changes(guild).size();
        system.restart("recovery");

        JsonPath finished = await().atMost(TAKE_OVER).pollInterval(Duration.ofSeconds(1))
                .until(() -> restore(guild, job), done -> List.of("COMPLETED", "FAILED").contains(done.getString("status")));
        assertThat(finished.getString("status")).as("the restore after the kill: %s", finished.prettify()).isEqualTo("COMPLETED");
        assertThat(changesAtTheKill).as("changes made before the kill").isBetween(3, 10);
        // 4 roles created and put in order, 4 channels created, 2 members' roles set: eleven changes, each made once, whoever made it
        assertThat(finished.getInt("totalSteps")).isEqualTo(11);
        assertThat(discord.guilds().changes(guild)).as("changes Discord received").hasSize(11);
        assertThat(Structure.names(discord.guilds().get(guild))).isEqualTo(Structure.names(saved.discord()));
        assertThat(eventTypes(Topics.of(Aggregates.RESTORE_JOB), job, "RestoreCompleted")).containsExactly("RestoreStarted", "RestoreCompleted");
        SystemInvariants.assertHold("recovery-service killed mid-restore", mark);
    }

    @Test
    void anAntiNukeBurstSpanningARestartTriggersOnce() {
        SystemInvariants.Mark mark = SystemInvariants.mark();
        Installed installed = umbra.installed();
        String actor = Snowflakes.random();
        Instant start = Instant.parse("2026-11-25T12:00:00Z");
        forward(installed.guildId(), actor, start, start.plusSeconds(1)).then().statusCode(202).body("triggered", equalTo(List.of()));
        system.crash("recovery");
        system.restart("recovery");

        forward(installed.guildId(), actor, start.plusSeconds(2)).then().statusCode(202)
                .body("triggered", equalTo(List.of("mass-channel-deletion")));
        forward(installed.guildId(), actor, start.plusSeconds(3)).then().statusCode(202).body("triggered", equalTo(List.of()));
        assertThat(eventTypes(Topics.of(Aggregates.ANTI_NUKE), installed.guildId(), "AntiNukeTriggered")).containsOnlyOnce("AntiNukeTriggered");
        SystemInvariants.assertHold("recovery-service killed mid-burst", mark);
    }

    /** The bot forwards channel deletions by {@code actor} from the guild's Discord audit log. */
    private io.restassured.response.Response forward(String guild, String actor, Instant... deletedAt) {
        List<Map<String, Object>> entries = new ArrayList<>();
        for (Instant at : deletedAt) {
            entries.add(Map.of("entryId", Snowflakes.random(), "action", "CHANNEL_DELETE", "actorId", actor, "targetId", Snowflakes.random(),
                    "occurredAt", at.toString()));
        }
        return given().baseUri(system.url("recovery")).auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                .body(Map.of("entries", entries)).when().post("/guilds/{id}/audit-log-entries", guild);
    }

    private JsonPath restore(String guild, String job) {
        return given().baseUri(system.url("recovery")).auth().oauth2(Tokens.bot()).when().get("/guilds/{g}/restores/{id}", guild, job)
                .then().statusCode(200).extract().jsonPath();
    }

    /** A guild's structure as the snapshot API takes it, as Discord has it, and nuked. */
    private record Structure(Map<String, Object> snapshot, String discord, String nuked) {

        static Structure of(String guild) {
            List<Map<String, Object>> roles = new ArrayList<>();
            roles.add(role(guild, "@everyone", 0));
            List<String> roleIds = new ArrayList<>();
            for (String name : List.of("admin", "mod", "helper", "vip")) {
                String id = Snowflakes.random();
                roleIds.add(id);
                roles.add(role(id, name, roles.size()));
            }
            String category = Snowflakes.random();
            List<Map<String, Object>> channels = new ArrayList<>();
            channels.add(channel(category, "text", 4, 0, null));
            int position = 0;
            for (String name : List.of("general", "staff", "memes")) {
                channels.add(channel(Snowflakes.random(), name, 0, position++, category));
            }
            List<Map<String, Object>> members = List.of(Map.of("id", Snowflakes.random(), "roles", roleIds.subList(0, 2)),
                    Map.of("id", Snowflakes.random(), "roles", roleIds.subList(2, 4)));
            Map<String, Object> snapshot = Map.of("roles", roles, "channels", channels, "members", members);

            List<Map<String, Object>> discordChannels = channels.stream().map(c -> {
                Map<String, Object> shaped = new TreeMap<>(Map.of("id", c.get("id"), "name", c.get("name"), "type", c.get("type"),
                        "position", c.get("position"), "permission_overwrites", List.of()));
                if (c.get("parentId") != null) {
                    shaped.put("parent_id", c.get("parentId"));
                }
                return shaped;
            }).toList();
            List<Map<String, Object>> discordMembers = members.stream()
                    .map(m -> Map.<String, Object>of("user", Map.of("id", m.get("id")), "roles", m.get("roles"))).toList();
            List<Map<String, Object>> strippedMembers = members.stream()
                    .map(m -> Map.<String, Object>of("user", Map.of("id", m.get("id")), "roles", List.of())).toList();
            return new Structure(snapshot, json(Map.of("roles", roles, "channels", discordChannels, "members", discordMembers)),
                    json(Map.of("roles", List.of(roles.get(0)), "channels", List.of(), "members", strippedMembers)));
        }

        /**
         * What a restore must bring back, independent of the ids Discord gives recreated objects: each role's
         * name and position, channel names, each member's role names.
         */
        static Map<String, Object> names(String discordJson) throws IOException {
            JsonNode guild = JSON.readTree(discordJson);
            Map<String, String> roleNames = new TreeMap<>();
            Map<String, Integer> hierarchy = new TreeMap<>();
            guild.path("roles").forEach(role -> {
                roleNames.put(role.path("id").asText(), role.path("name").asText());
                hierarchy.put(role.path("name").asText(), role.path("position").asInt());
            });
            TreeSet<String> channels = new TreeSet<>();
            guild.path("channels").forEach(channel -> channels.add(channel.path("name").asText()));
            Map<String, TreeSet<String>> members = new TreeMap<>();
            guild.path("members").forEach(member -> {
                TreeSet<String> named = new TreeSet<>();
                member.path("roles").forEach(role -> named.add(roleNames.getOrDefault(role.asText(), "?" + role.asText())));
                members.put(member.path("user").path("id").asText(), named);
            });
            return Map.of("roles", hierarchy, "channels", channels, "members", members);
        }

        private static Map<String, Object> role(String id, String name, int position) {
            return Map.of("id", id, "name", name, "color", 0, "permissions", "0", "position", position, "hoist", false, "mentionable", false);
        }

        private static Map<String, Object> channel(String id, String name, int type, int position, String parent) {
            Map<String, Object> channel = new TreeMap<>(Map.of("id", id, "name", name, "type", type, "position", position,
                    "permissionOverwrites", List.of()));
            if (parent != null) {
                channel.put("parentId", parent);
            }
            return channel;
        }

        private static String json(Object value) {
            try {
                return JSON.writeValueAsString(value);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
