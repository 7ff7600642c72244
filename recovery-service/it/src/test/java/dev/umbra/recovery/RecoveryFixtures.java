package dev.umbra.recovery;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.umbra.devstack.DiscordSandbox;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.recovery.snapshot.GuildStructure;
import dev.umbra.testing.Database;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** What the recovery ITs share: structures, snapshots through the API, plans through licensing's events. */
public final class RecoveryFixtures {

    public static final Duration WAIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    private RecoveryFixtures() {
    }

    /** A guild with a category and two channels in it, three roles besides @everyone, and two members. */
    public static GuildStructure structure(String guildId) {
        String mod = Snowflakes.random();
        String helper = Snowflakes.random();
        String vip = Snowflakes.random();
        String category = Snowflakes.random();
        return new GuildStructure(
                List.of(new GuildStructure.Role(guildId, "@everyone", 0, "104324673", 0, false, false),
                        new GuildStructure.Role(mod, "mod", 3447003, "8", 3, true, true),
                        new GuildStructure.Role(helper, "helper", 0, "4", 2, false, true),
                        new GuildStructure.Role(vip, "vip", 15844367, "0", 1, true, false)),
                List.of(new GuildStructure.Channel(category, "text", 4, 0, null, null, List.of()),
                        new GuildStructure.Channel(Snowflakes.random(), "general", 0, 0, category, "say hi", List.of()),
                        new GuildStructure.Channel(Snowflakes.random(), "staff", 0, 1, category, null,
                                List.of(new GuildStructure.Overwrite(guildId, 0, "0", "1024"), new GuildStructure.Overwrite(mod, 0, "1024", "0")))),
                List.of(new GuildStructure.Member(Snowflakes.random(), List.of(mod, vip)), new GuildStructure.Member(Snowflakes.random(), List.of(helper))));
    }

    public static String body(String trigger, Object structure) {
        ObjectNode body = JSON.createObjectNode().put("trigger", trigger);
        body.set("structure", JSON.valueToTree(structure));
        return body.toString();
    }

    public static Response postSnapshot(String guildId, String body) {
        return given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body(body).when().post("/guilds/{id}/snapshots", guildId);
    }

    public static UUID takeSnapshot(String guildId, GuildStructure structure) {
        return UUID.fromString(postSnapshot(guildId, body("MANUAL", structure)).then().statusCode(201).extract().path("id"));
    }

    public static long snapshotsOf(Database db, String guildId) {
        return db.count("select count(*) from snapshot where guild_id = ?", guildId);
    }

    /** Licensing grants the plan; returns the license once recovery has applied it. */
    public static UUID grant(Database db, String guildId, String plan) {
        UUID license = UUID.randomUUID();
        OutboxRecords.publish(new LicenseGranted(license, guildId, plan), Instant.now());
        await().atMost(WAIT).until(() -> db.count("select count(*) from license_plan where license_id = ? and plan = ?", license, plan) == 1);
        return license;
    }

    /** The structure as Discord's API has it (snake_case, members with a user object), as JSON text for the sandbox. */
    public static String discordShape(GuildStructure structure) {
        ObjectNode guild = JSON.createObjectNode();
        ArrayNode roles = guild.putArray("roles");
        structure.roles().forEach(role -> roles.addObject().put("id", role.id()).put("name", role.name()).put("color", role.color())
                .put("permissions", role.permissions()).put("position", role.position()).put("hoist", role.hoist())
                .put("mentionable", role.mentionable()));
        ArrayNode channels = guild.putArray("channels");
        structure.channels().forEach(channel -> {
            ObjectNode json = channels.addObject().put("id", channel.id()).put("name", channel.name()).put("type", channel.type())
                    .put("position", channel.position()).put("parent_id", channel.parentId()).put("topic", channel.topic());
            ArrayNode overwrites = json.putArray("permission_overwrites");
            channel.permissionOverwrites().forEach(o -> overwrites.addObject().put("id", o.id()).put("type", o.type())
                    .put("allow", o.allow()).put("deny", o.deny()));
        });
        ArrayNode members = guild.putArray("members");
        structure.members().forEach(member -> {
            ObjectNode json = members.addObject();
            json.putObject("user").put("id", member.id());
            ArrayNode memberRoles = json.putArray("roles");
            member.roles().forEach(memberRoles::add);
        });
        return guild.toString();
    }

    /** The guild as the Discord sandbox has it now, in the shape {@link #discordShape} gives. */
    public static JsonNode onDiscord(DiscordSandbox discord, String guildId) {
        try {
            return JSON.readTree(discord.guilds().get(guildId));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The events of {@code type} on the probe's topic whose payload names {@code text}. */
    public static List<ConsumerRecord<String, byte[]>> events(KafkaProbe probe, String type, String text) {
        List<ConsumerRecord<String, byte[]>> matching = new ArrayList<>();
        probe.seen().stream().filter(record -> type.equals(KafkaProbe.header(record, EventHeaders.EVENT_TYPE))
                && KafkaProbe.value(record).contains(text)).forEach(matching::add);
        return matching;
    }
}
