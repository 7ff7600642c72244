package dev.umbra.devstack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A stand-in for the parts of Discord's HTTP API the services call. The bot's own user ({@code GET /api/v10/users/@me},
 * always {@link #BOT_USER_ID}). Direct messages: open a DM channel
 * ({@code POST /api/v10/users/@me/channels}), post a message ({@code POST /api/v10/channels/{id}/messages},
 * honouring {@code nonce} with {@code enforce_nonce} as Discord does). Guild structure (see {@link Guilds}):
 * roles, channels with permission overwrites, and members' roles, read and changed as Discord does.
 * It records what it delivered and every structural change, and, on request, fails (HTTP 503) or hangs,
 * to play an outage (at once, or after a number of calls that still pass), rate-limits (HTTP 429 with
 * {@code Retry-After}), or refuses the message (HTTP 403, as Discord does for a user who does not take DMs).
 */
public final class DiscordSandbox implements AutoCloseable {

    public record Delivered(String recipientId, String content, String nonce, Instant receivedAt) {
    }

    private enum Fault { NONE, FAIL, HANG, RATE_LIMIT, REJECT, REFUSE_TOKEN }

    /** The user the sandbox's bot token belongs to. */
    public static final String BOT_USER_ID = "100000000000000042";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration HANG = Duration.ofSeconds(30);

    private final HttpServer server;
    private final String botToken;
    private final List<Delivered> delivered = new CopyOnWriteArrayList<>();
    private final List<String> postedNonces = new CopyOnWriteArrayList<>();
    private final Map<String, JsonNode> messagesByNonce = new ConcurrentHashMap<>();
    private final AtomicReference<Fault> fault = new AtomicReference<>(Fault.NONE);
    private final AtomicInteger faultsLeft = new AtomicInteger();
    private final AtomicInteger passingBeforeFault = new AtomicInteger();
    private final AtomicInteger failEvery = new AtomicInteger();
    private final AtomicInteger callsSinceFailEvery = new AtomicInteger();
    private final AtomicInteger createAnswersToLose = new AtomicInteger();
    private final AtomicReference<Duration> latency = new AtomicReference<>(Duration.ZERO);
    private final Guilds guilds = new Guilds();
    private final AtomicReference<Duration> retryAfter = new AtomicReference<>(Duration.ZERO);
    private final AtomicLong ids = new AtomicLong(1_300_000_000_000_000_000L);

    private DiscordSandbox(HttpServer server, String botToken) {
        this.server = server;
        this.botToken = botToken;
    }

    static DiscordSandbox start() {
        byte[] secret = new byte[24];
        new SecureRandom().nextBytes(secret);
        return start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), HexFormat.of().formatHex(secret));
    }

    /** A sandbox listening on {@code address} (port 0: a free one) that accepts {@code botToken}. */
    public static DiscordSandbox start(InetSocketAddress address, String botToken) {
        try {
            HttpServer server = HttpServer.create(address, 0);
            DiscordSandbox sandbox = new DiscordSandbox(server, botToken);
            server.createContext("/api/v10/", sandbox::handle);
            server.createContext("/sandbox/", sandbox::control);
            server.setExecutor(Executors.newCachedThreadPool(r -> {
                Thread thread = new Thread(r, "discord-sandbox");
                thread.setDaemon(true);
                return thread;
            }));
            server.start();
            return sandbox;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The token the bot authenticates with ({@code Authorization: Bot <token>}). */
    public String botToken() {
        return botToken;
    }

    public List<Delivered> delivered() {
        return List.copyOf(delivered);
    }

    /** The nonce of every message post, repeats included: a nonce seen twice means a message was sent twice. */
    public List<String> postedNonces() {
        return List.copyOf(postedNonces);
    }

    public List<Delivered> deliveredTo(String recipientId) {
        return delivered.stream().filter(d -> d.recipientId().equals(recipientId)).toList();
    }

    /** Answers 503 to the next {@code count} calls (all calls if negative). */
    public void fail(int count) {
        failAfter(0, count);
    }

    /** Lets the next {@code passing} calls through, then answers 503 to {@code count} calls (all later calls if negative): an outage mid-way. */
    public void failAfter(int passing, int count) {
        faultsLeft.set(count < 0 ? Integer.MAX_VALUE : count);
        passingBeforeFault.set(passing);
        fault.set(Fault.FAIL);
    }

    /** From now on until {@link #recover()}, every {@code n}-th call answers 503: a Discord that keeps failing now and then. */
    public void failEvery(int n) {
        callsSinceFailEvery.set(0);
        failEvery.set(n);
    }

    /** The guilds' roles, channels and members as this sandbox keeps them. */
    public Guilds guilds() {
        return guilds;
    }

    /** Holds the next {@code count} calls without answering, longer than any sane client timeout. */
    public void hang(int count) {
        faultsLeft.set(count < 0 ? Integer.MAX_VALUE : count);
        fault.set(Fault.HANG);
    }

    /** Answers 429 with {@code Retry-After} (seconds, as Discord sends it) to the next {@code count} calls (all if negative). */
    public void rateLimit(int count, Duration after) {
        retryAfter.set(after);
        faultsLeft.set(count < 0 ? Integer.MAX_VALUE : count);
        fault.set(Fault.RATE_LIMIT);
    }

    /** Answers 403 "Cannot send messages to this user" to the next {@code count} calls (all if negative). */
    public void reject(int count) {
        faultsLeft.set(count < 0 ? Integer.MAX_VALUE : count);
        fault.set(Fault.REJECT);
    }

    /** Answers 401 to the next {@code count} calls (all if negative), as Discord does to a bot token it no longer accepts. */
    public void refuseToken(int count) {
        faultsLeft.set(count < 0 ? Integer.MAX_VALUE : count);
        fault.set(Fault.REFUSE_TOKEN);
    }

    /**
     * The next {@code count} creates (a role or a channel) are made, then the connection is closed without
     * an answer: the client cannot know whether its create happened.
     */
    public void loseCreateAnswers(int count) {
        createAnswersToLose.set(count < 0 ? Integer.MAX_VALUE : count);
    }

    /** Every API call is answered only after {@code latency} (a slow Discord; zero: at once). */
    public void answerAfter(Duration latency) {
        this.latency.set(latency);
    }

    public void recover() {
        fault.set(Fault.NONE);
        faultsLeft.set(0);
        passingBeforeFault.set(0);
        failEvery.set(0);
        createAnswersToLose.set(0);
        latency.set(Duration.ZERO);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!("Bot " + botToken).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
                respond(exchange, 401, "{\"message\": \"401: Unauthorized\", \"code\": 0}");
                return;
            }
            if (!latency.get().isZero()) {
                sleep(latency.get());
            }
            int every = failEvery.get();
            if (every > 0 && callsSinceFailEvery.incrementAndGet() % every == 0) {
                respond(exchange, 503, "{\"message\": \"upstream unavailable\"}");
                return;
            }
            Fault current = fault.get();
            if (current != Fault.NONE && passingBeforeFault.getAndUpdate(n -> Math.max(0, n - 1)) == 0
                    && faultsLeft.getAndDecrement() > 0) {
                switch (current) {
                    case RATE_LIMIT -> {
                        double seconds = retryAfter.get().toMillis() / 1000.0;
                        exchange.getResponseHeaders().set("Retry-After", Double.toString(seconds));
                        respond(exchange, 429, JSON.createObjectNode().put("message", "You are being rate limited.")
                                .put("retry_after", seconds).put("global", false).toString());
                    }
                    case REJECT -> respond(exchange, 403, "{\"message\": \"Cannot send messages to this user\", \"code\": 50007}");
                    case REFUSE_TOKEN -> respond(exchange, 401, "{\"message\": \"401: Unauthorized\", \"code\": 0}");
                    case HANG -> {
                        sleep(HANG);
                        respond(exchange, 503, "{\"message\": \"upstream unavailable\"}");
                    }
                    default -> respond(exchange, 503, "{\"message\": \"upstream unavailable\"}");
                }
                return;
            }
            String path = exchange.getRequestURI().getPath();
            String method = exchange.getRequestMethod();
            byte[] bytes = exchange.getRequestBody().readAllBytes();
            JsonNode body = bytes.length == 0 ? JSON.createObjectNode() : JSON.readTree(bytes);
            Guilds.Answer structural = guilds.handle(method, path, body);
            if (structural != null && structural.status() == 201 && createAnswersToLose.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                // made, and the answer lost on the way: closed before any byte of it
                return;
            }
            if (structural != null) {
                respond(exchange, structural.status(), structural.body());
            } else if ("GET".equals(exchange.getRequestMethod()) && path.equals("/api/v10/users/@me")) {
                respond(exchange, 200, JSON.createObjectNode().put("id", BOT_USER_ID).put("username", "Umbra").put("bot", true).toString());
            } else if ("POST".equals(exchange.getRequestMethod()) && path.equals("/api/v10/users/@me/channels")) {
                String recipient = body.path("recipient_id").asText();
                respond(exchange, 200, JSON.createObjectNode().put("id", "dm-" + recipient).put("type", 1).toString());
            } else if ("POST".equals(exchange.getRequestMethod()) && path.matches("/api/v10/channels/dm-\\d+/messages")) {
                respond(exchange, 200, message(path.substring("/api/v10/channels/dm-".length(), path.lastIndexOf('/')), body).toString());
            } else {
                respond(exchange, 404, "{\"message\": \"404: Not Found\", \"code\": 0}");
            }
        }
    }

    /**
     * For people trying the local system: {@code GET /sandbox/messages} lists what was delivered;
     * {@code POST /sandbox/faults {"mode": "fail"|"hang"|"rate-limit"|"reject"|"lose-create-answers"|"none", "count": n,
     * "retry_after_seconds": s}} plays an outage, a rate limit, a refusal or creates whose answer is lost (n &lt; 0: until
     * told otherwise).
     */
    private void control(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if ("GET".equals(exchange.getRequestMethod()) && path.equals("/sandbox/messages")) {
                respond(exchange, 200, JSON.writeValueAsString(delivered.stream().map(d -> Map.of("recipient_id", d.recipientId(),
                        "content", d.content(), "received_at", d.receivedAt().toString())).toList()));
            } else if ("POST".equals(exchange.getRequestMethod()) && path.equals("/sandbox/faults")) {
                JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
                int count = body.path("count").asInt(-1);
                switch (body.path("mode").asText("none")) {
                    case "fail" -> fail(count);
                    case "hang" -> hang(count);
                    case "rate-limit" -> rateLimit(count, Duration.ofMillis((long) (body.path("retry_after_seconds").asDouble(5) * 1000)));
                    case "reject" -> reject(count);
                    case "lose-create-answers" -> loseCreateAnswers(count);
                    default -> recover();
                }
                respond(exchange, 200, JSON.createObjectNode().put("mode", fault.get().name().toLowerCase()).toString());
            } else {
                respond(exchange, 404, "{\"message\": \"404: Not Found\"}");
            }
        }
    }

    private JsonNode message(String recipient, JsonNode body) {
        String nonce = body.path("nonce").asText(null);
        boolean enforceNonce = body.path("enforce_nonce").asBoolean(false);
        if (nonce != null) {
            postedNonces.add(nonce);
        }
        if (enforceNonce && nonce != null && messagesByNonce.containsKey(nonce)) {
            return messagesByNonce.get(nonce);
        }
        ObjectNode message = JSON.createObjectNode()
                .put("id", Long.toString(ids.incrementAndGet()))
                .put("channel_id", "dm-" + recipient)
                .put("content", body.path("content").asText());
        if (nonce != null) {
            message.put("nonce", nonce);
            messagesByNonce.put(nonce, message);
        }
        delivered.add(new Delivered(recipient, body.path("content").asText(), nonce, Instant.now()));
        return message;
    }

    private static void respond(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Guilds as Discord keeps them: roles, channels (with permission overwrites) and members' roles,
     * under the endpoints of Discord's API v10 ({@code GET|POST|PATCH /guilds/{id}/roles} (PATCH: positions), {@code PATCH|DELETE
     * /guilds/{id}/roles/{role}}, {@code GET|POST /guilds/{id}/channels}, {@code PATCH|DELETE /channels/{id}},
     * {@code GET /guilds/{id}/members}, {@code PATCH /guilds/{id}/members/{user}} with {@code roles}). Objects
     * are Discord's JSON (snake_case). A role with {@code "managed": true} (an integration's, the booster role) is
     * refused any change or deletion (403). Every change is recorded per guild as "METHOD path" so that a test can
     * count what a client did; reads are not.
     */
    public static final class Guilds {

        record Answer(int status, String body) {
        }

        private static final class Guild {
            final Map<String, ObjectNode> roles = new java.util.LinkedHashMap<>();
            final Map<String, ObjectNode> channels = new java.util.LinkedHashMap<>();
            final Map<String, ObjectNode> members = new java.util.LinkedHashMap<>();
            final List<String> changes = new CopyOnWriteArrayList<>();
        }

        private static final java.util.regex.Pattern GUILD_PATH =
                java.util.regex.Pattern.compile("/api/v10/guilds/(\\d+)/(roles|channels|members)(?:/(\\d+))?");
        private static final java.util.regex.Pattern CHANNEL_PATH = java.util.regex.Pattern.compile("/api/v10/channels/(\\d+)");

        private final Map<String, Guild> guilds = new ConcurrentHashMap<>();
        private final Map<String, String> guildOfChannel = new ConcurrentHashMap<>();
        private final Set<String> refusedCreates = ConcurrentHashMap.newKeySet();
        private final AtomicLong ids = new AtomicLong(1_400_000_000_000_000_000L);

        /**
         * Replaces the guild's structure, given as JSON text: {@code {"roles": [...], "channels": [...], "members":
         * [{"user": {"id": ..}, "roles": [..]}]}}. Text, not Jackson's types: a Quarkus test has its own copy of those.
         */
        public void put(String guildId, String json) {
            JsonNode structure;
            try {
                structure = JSON.readTree(json);
            } catch (IOException e) {
                throw new UncheckedIOException("not a guild structure: " + json, e);
            }
            Guild guild = new Guild();
            structure.path("roles").forEach(role -> guild.roles.put(role.path("id").asText(), role.deepCopy()));
            structure.path("channels").forEach(channel -> {
                ObjectNode copy = channel.deepCopy();
                copy.put("guild_id", guildId);
                guild.channels.put(channel.path("id").asText(), copy);
                guildOfChannel.put(channel.path("id").asText(), guildId);
            });
            structure.path("members").forEach(member -> guild.members.put(member.path("user").path("id").asText(), member.deepCopy()));
            guilds.put(guildId, guild);
        }

        /** The guild's structure as JSON text in the shape {@link #put} takes (empty lists for a guild never put). */
        public synchronized String get(String guildId) {
            Guild guild = guilds.getOrDefault(guildId, new Guild());
            ObjectNode structure = JSON.createObjectNode();
            guild.roles.values().forEach(structure.withArray("roles")::add);
            guild.channels.values().forEach(structure.withArray("channels")::add);
            guild.members.values().forEach(structure.withArray("members")::add);
            return structure.toString();
        }

        /** From now on, creating a role or channel of this name in the guild answers 403, as for a role above the bot's own. */
        public void refuseToCreate(String guildId, String name) {
            refusedCreates.add(guildId + "/" + name);
        }

        /** Every change made to the guild, in order, as "METHOD path". */
        public List<String> changes(String guildId) {
            Guild guild = guilds.get(guildId);
            return guild == null ? List.of() : List.copyOf(guild.changes);
        }

        synchronized Answer handle(String method, String path, JsonNode body) throws IOException {
            java.util.regex.Matcher guildPath = GUILD_PATH.matcher(path);
            if (guildPath.matches()) {
                Guild guild = guilds.computeIfAbsent(guildPath.group(1), id -> new Guild());
                return guildCall(guild, guildPath.group(1), method, path, guildPath.group(2), guildPath.group(3), body);
            }
            java.util.regex.Matcher channelPath = CHANNEL_PATH.matcher(path);
            if (channelPath.matches()) {
                String guildId = guildOfChannel.get(channelPath.group(1));
                Guild guild = guildId == null ? null : guilds.get(guildId);
                if (guild == null || !guild.channels.containsKey(channelPath.group(1))) {
                    return notFound("Unknown Channel", 10003);
                }
                return objectCall(guild, guild.channels, method, path, channelPath.group(1), body);
            }
            return null;
        }

        private Answer guildCall(Guild guild, String guildId, String method, String path, String kind, String id, JsonNode body)
                throws IOException {
            Map<String, ObjectNode> objects = switch (kind) {
                case "roles" -> guild.roles;
                case "channels" -> guild.channels;
                default -> guild.members;
            };
            if (id == null && "GET".equals(method)) {
                return new Answer(200, JSON.writeValueAsString(objects.values()));
            }
            if (id == null && "PATCH".equals(method) && "roles".equals(kind)) {
                // modify guild role positions: [{id, position}]
                for (JsonNode moved : body) {
                    if (!objects.containsKey(moved.path("id").asText())) {
                        return new Answer(400, JSON.createObjectNode().put("message", "Invalid Form Body").put("code", 50035).toString());
                    }
                }
                body.forEach(moved -> objects.get(moved.path("id").asText()).put("position", moved.path("position").asInt()));
                guild.changes.add(method + " " + path);
                return new Answer(200, JSON.writeValueAsString(objects.values()));
            }
            if (id == null && "POST".equals(method) && !"members".equals(kind)) {
                if (refusedCreates.contains(guildId + "/" + body.path("name").asText())) {
                    return new Answer(403, JSON.createObjectNode().put("message", "Missing Permissions").put("code", 50013).toString());
                }
                ObjectNode created = ((ObjectNode) body.deepCopy()).put("id", Long.toString(ids.incrementAndGet()));
                if ("roles".equals(kind) && !created.has("position")) {
                    // as Discord does: a new role sits just above @everyone until it is moved
                    created.put("position", 1);
                }
                if ("channels".equals(kind)) {
                    created.put("guild_id", guildId);
                    guildOfChannel.put(created.path("id").asText(), guildId);
                }
                objects.put(created.path("id").asText(), created);
                guild.changes.add(method + " " + path);
                return new Answer(201, created.toString());
            }
            if (id == null) {
                return null;
            }
            if ("members".equals(kind) && "PATCH".equals(method)) {
                ObjectNode member = objects.get(id);
                if (member == null) {
                    return notFound("Unknown Member", 10007);
                }
                if (body.has("roles")) {
                    member.set("roles", body.get("roles"));
                }
                guild.changes.add(method + " " + path);
                return new Answer(200, member.toString());
            }
            if ("roles".equals(kind) && objects.containsKey(id)) {
                return objectCall(guild, objects, method, path, id, body);
            }
            return "roles".equals(kind) ? notFound("Unknown Role", 10011) : null;
        }

        private static Answer objectCall(Guild guild, Map<String, ObjectNode> objects, String method, String path, String id, JsonNode body) {
            ObjectNode object = objects.get(id);
            if (objects == guild.roles && object.path("managed").asBoolean() && !"GET".equals(method)) {
                // an integration's or the booster role: as Discord, no bot may change or delete it
                return new Answer(403, JSON.createObjectNode().put("message", "Missing Permissions").put("code", 50013).toString());
            }
            switch (method) {
                case "PATCH" -> {
                    body.fields().forEachRemaining(field -> object.set(field.getKey(), field.getValue()));
                    guild.changes.add(method + " " + path);
                    return new Answer(200, object.toString());
                }
                case "DELETE" -> {
                    objects.remove(id);
                    if (objects == guild.roles) {
                        guild.members.values().forEach(member -> {
                            com.fasterxml.jackson.databind.node.ArrayNode kept = JSON.createArrayNode();
                            member.path("roles").forEach(role -> {
                                if (!role.asText().equals(id)) {
                                    kept.add(role);
                                }
                            });
                            member.set("roles", kept);
                        });
                    }
                    guild.changes.add(method + " " + path);
                    return new Answer(204, "");
                }
                case "GET" -> {
                    return new Answer(200, object.toString());
                }
                default -> {
                    return new Answer(405, "{\"message\": \"405: Method Not Allowed\", \"code\": 0}");
                }
            }
        }

        private static Answer notFound(String message, int code) {
            return new Answer(404, JSON.createObjectNode().put("message", message).put("code", code).toString());
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
