package dev.umbra.recovery.discord;

import dev.umbra.recovery.snapshot.GuildStructure;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The guild endpoints of Discord's HTTP API v10 that recovery needs: read a guild's roles, channels
 * and members, and create, change and delete roles and channels, and set a member's roles. Every call
 * goes through {@link DiscordGuard} with a timeout for the whole exchange. A Vert.x web client rather
 * than a REST client: telling "surely not arrived" from "uncertain" needs the transport's own failures.
 * Connections are not kept alive, so a request never fails on a connection Discord already closed
 * (which could only be classified as uncertain).
 *
 * <p>Role positions are written by their own call ({@link #setRolePositions}), as Discord orders roles;
 * a role's create or update leaves its position alone.
 */
@ApplicationScoped
public class DiscordGuilds {

    private static final Logger LOG = Logger.getLogger(DiscordGuilds.class);
    private static final int MEMBER_PAGE = 1000;

    private final DiscordSettings settings;
    private final DiscordGuard guard;
    private final WebClient client;

    DiscordGuilds(DiscordSettings settings, DiscordGuard guard, Vertx vertx) {
        this.settings = settings;
        this.guard = guard;
        WebClientOptions options = new WebClientOptions()
                .setConnectTimeout((int) settings.client().connectTimeout().toMillis())
                .setKeepAlive(false)
                .setFollowRedirects(false);
        this.client = WebClient.wrap(vertx.httpClientBuilder().with(options)
                .withConnectHandler(connection -> connection.exceptionHandler(error -> LOG.debugf("Discord connection failed: %s", error)))
                .build(), options);
    }

    /** False while Discord's circuit is open. */
    public boolean available() {
        return !guard.open();
    }

    /**
     * The guild as Discord has it now, {@code afterEachCall} run after each of the calls it takes: a large
     * guild's members take one per thousand, and a reader holding a work item's lease renews it there, as
     * the whole read may outlast the lease.
     */
    public Uni<GuildStructure> read(String guildId, Supplier<Uni<Void>> afterEachCall) {
        return call(HttpMethod.GET, "/guilds/" + guildId + "/roles", null).call(afterEachCall::get)
                .map(answer -> roles(answer.bodyAsJsonArray()))
                .chain(roles -> call(HttpMethod.GET, "/guilds/" + guildId + "/channels", null).call(afterEachCall::get)
                        .map(answer -> channels(answer.bodyAsJsonArray()))
                        .chain(channels -> members(guildId, null, new ArrayList<>(), afterEachCall)
                                .map(members -> new GuildStructure(roles, channels, members))));
    }

    /** The id of the user the bot token belongs to (Discord's "get current user"). */
    public Uni<String> botUserId() {
        return call(HttpMethod.GET, "/users/@me", null).map(answer -> {
            JsonObject user = answer.bodyAsJsonObject();
            if (user == null || user.getString("id") == null) {
                throw DiscordFault.failed(answer.statusCode());
            }
            return user.getString("id");
        });
    }

    /** The ids of the guild's roles now. */
    public Uni<List<String>> roleIds(String guildId) {
        return call(HttpMethod.GET, "/guilds/" + guildId + "/roles", null)
                .map(answer -> roles(answer.bodyAsJsonArray()).stream().map(GuildStructure.Role::id).toList());
    }

    /** Creates the role; returns its new id. */
    public Uni<String> createRole(String guildId, GuildStructure.Role role) {
        return call(HttpMethod.POST, "/guilds/" + guildId + "/roles", role(role)).map(answer -> answer.bodyAsJsonObject().getString("id"));
    }

    public Uni<Void> updateRole(String guildId, String roleId, GuildStructure.Role role) {
        return call(HttpMethod.PATCH, "/guilds/" + guildId + "/roles/" + roleId, role(role)).replaceWithVoid();
    }

    /** Deletes the role; one already gone is fine. */
    public Uni<Void> deleteRole(String guildId, String roleId) {
        return callAllowingGone(HttpMethod.DELETE, "/guilds/" + guildId + "/roles/" + roleId);
    }

    /** Creates the channel; returns its new id. */
    public Uni<String> createChannel(String guildId, GuildStructure.Channel channel) {
        return call(HttpMethod.POST, "/guilds/" + guildId + "/channels", channel(channel).put("type", channel.type()))
                .map(answer -> answer.bodyAsJsonObject().getString("id"));
    }

    public Uni<Void> updateChannel(String channelId, GuildStructure.Channel channel) {
        return call(HttpMethod.PATCH, "/channels/" + channelId, channel(channel)).replaceWithVoid();
    }

    /** Deletes the channel; one already gone is fine. */
    public Uni<Void> deleteChannel(String channelId) {
        return callAllowingGone(HttpMethod.DELETE, "/channels/" + channelId);
    }

    /** Puts each role at its position (Discord's "modify guild role positions"; the same call again changes nothing). */
    public Uni<Void> setRolePositions(String guildId, Map<String, Integer> positions) {
        JsonArray body = new JsonArray();
        positions.forEach((id, position) -> body.add(new JsonObject().put("id", id).put("position", position)));
        return call(HttpMethod.PATCH, "/guilds/" + guildId + "/roles", body).replaceWithVoid();
    }

    /** Sets the member's roles (all of them). False when the member is no longer in the guild. */
    public Uni<Boolean> setMemberRoles(String guildId, String memberId, List<String> roles) {
        return call(HttpMethod.PATCH, "/guilds/" + guildId + "/members/" + memberId, new JsonObject().put("roles", new JsonArray(roles)))
                .map(answer -> true)
                .onFailure(error -> error instanceof DiscordRejection rejection && rejection.status() == 404).recoverWithItem(false);
    }

    private Uni<List<GuildStructure.Member>> members(String guildId, String after, List<GuildStructure.Member> collected,
            Supplier<Uni<Void>> afterEachCall) {
        String query = "?limit=" + MEMBER_PAGE + (after == null ? "" : "&after=" + after);
        return call(HttpMethod.GET, "/guilds/" + guildId + "/members" + query, null).call(afterEachCall::get).chain(answer -> {
            JsonArray page = answer.bodyAsJsonArray();
            page.forEach(member -> {
                JsonObject json = (JsonObject) member;
                List<String> roles = new ArrayList<>();
                json.getJsonArray("roles", new JsonArray()).forEach(role -> roles.add((String) role));
                collected.add(new GuildStructure.Member(json.getJsonObject("user").getString("id"), roles));
            });
            if (page.size() < MEMBER_PAGE) {
                return Uni.createFrom().item(collected);
            }
            return members(guildId, collected.get(collected.size() - 1).id(), collected, afterEachCall);
        });
    }

    private Uni<Void> callAllowingGone(HttpMethod method, String path) {
        return call(method, path, null).replaceWithVoid()
                .onFailure(error -> error instanceof DiscordRejection rejection && rejection.status() == 404).recoverWithNull();
    }

    /** One guarded exchange; 429 and 5xx become {@link DiscordFault}s, other 4xx {@link DiscordRejection}s. */
    private Uni<HttpResponse<Buffer>> call(HttpMethod method, String path, Object body) {
        return guard.call(() -> {
            HttpRequest<Buffer> request = client.requestAbs(method, settings.url() + "/api/v10" + path)
                    .putHeader("Authorization", "Bot " + settings.botToken())
                    .timeout(settings.client().readTimeout().toMillis());
            return Uni.createFrom().completionStage(() -> (body == null ? request.send() : request.sendJson(body)).toCompletionStage())
                    .onFailure().transform(DiscordFault::of)
                    .map(answer -> {
                        int status = answer.statusCode();
                        if (status == 429) {
                            throw DiscordFault.rateLimited(retryAfter(answer.getHeader("Retry-After")));
                        }
                        if (status >= 500) {
                            throw DiscordFault.failed(status);
                        }
                        if (status >= 400) {
                            JsonObject error = errorOf(answer);
                            throw new DiscordRejection(status, error.getString("message", ""));
                        }
                        return answer;
                    });
        });
    }

    private static Duration retryAfter(String header) {
        if (header == null || header.isBlank()) {
            return null;
        }
        try {
            return Duration.ofMillis(Math.max(0, new BigDecimal(header.trim()).movePointRight(3).longValue()));
        } catch (NumberFormatException notSeconds) {
            return null;
        }
    }

    private static JsonObject errorOf(HttpResponse<Buffer> answer) {
        try {
            JsonObject error = answer.bodyAsJsonObject();
            return error == null ? new JsonObject() : error;
        } catch (RuntimeException notJson) {
            return new JsonObject();
        }
    }

    private static JsonObject role(GuildStructure.Role role) {
        return new JsonObject().put("name", role.name()).put("permissions", role.permissions()).put("color", role.color())
                .put("hoist", role.hoist()).put("mentionable", role.mentionable());
    }

    private static JsonObject channel(GuildStructure.Channel channel) {
        JsonArray overwrites = new JsonArray();
        channel.permissionOverwrites().forEach(overwrite -> overwrites.add(new JsonObject().put("id", overwrite.id())
                .put("type", overwrite.type()).put("allow", overwrite.allow()).put("deny", overwrite.deny())));
        return new JsonObject().put("name", channel.name()).put("position", channel.position()).put("parent_id", channel.parentId())
                .put("topic", channel.topic()).put("permission_overwrites", overwrites);
    }

    private static List<GuildStructure.Role> roles(JsonArray json) {
        List<GuildStructure.Role> roles = new ArrayList<>();
        json.forEach(item -> {
            JsonObject role = (JsonObject) item;
            roles.add(new GuildStructure.Role(role.getString("id"), role.getString("name"), role.getInteger("color", 0),
                    role.getString("permissions", "0"), role.getInteger("position", 0), role.getBoolean("hoist", false),
                    role.getBoolean("mentionable", false)));
        });
        return roles;
    }

    private static List<GuildStructure.Channel> channels(JsonArray json) {
        List<GuildStructure.Channel> channels = new ArrayList<>();
        json.forEach(item -> {
            JsonObject channel = (JsonObject) item;
            List<GuildStructure.Overwrite> overwrites = new ArrayList<>();
            channel.getJsonArray("permission_overwrites", new JsonArray()).forEach(o -> {
                JsonObject overwrite = (JsonObject) o;
                overwrites.add(new GuildStructure.Overwrite(overwrite.getString("id"), overwrite.getInteger("type", 0),
                        overwrite.getString("allow", "0"), overwrite.getString("deny", "0")));
            });
            channels.add(new GuildStructure.Channel(channel.getString("id"), channel.getString("name"), channel.getInteger("type", 0),
                    channel.getInteger("position", 0), channel.getString("parent_id"), channel.getString("topic"), overwrites));
        });
        return channels;
    }

    @PreDestroy
    void close() {
        client.close();
    }
}
