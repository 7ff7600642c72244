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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A stand-in for the part of Discord's HTTP API that sends direct messages: open a DM channel
 * ({@code POST /api/v10/users/@me/channels}), post a message ({@code POST /api/v10/channels/{id}/messages},
 * honouring {@code nonce} with {@code enforce_nonce} as Discord does). It records what it delivered and,
 * on request, fails (HTTP 503) or hangs, to play an outage, rate-limits (HTTP 429 with {@code Retry-After}),
 * or refuses the message (HTTP 403, as Discord does for a user who does not take DMs).
 */
public final class DiscordSandbox implements AutoCloseable {

    public record Delivered(String recipientId, String content, String nonce, Instant receivedAt) {
    }

    private enum Fault { NONE, FAIL, HANG, RATE_LIMIT, REJECT }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration HANG = Duration.ofSeconds(30);

    private final HttpServer server;
    private final String botToken;
    private final List<Delivered> delivered = new CopyOnWriteArrayList<>();
    private final List<String> postedNonces = new CopyOnWriteArrayList<>();
    private final Map<String, JsonNode> messagesByNonce = new ConcurrentHashMap<>();
    private final AtomicReference<Fault> fault = new AtomicReference<>(Fault.NONE);
    private final AtomicInteger faultsLeft = new AtomicInteger();
    private final AtomicReference<Duration> retryAfter = new AtomicReference<>(Duration.ZERO);
    private final AtomicLong ids = new AtomicLong(1_300_000_000_000_000_000L);

    private DiscordSandbox(HttpServer server, String botToken) {
        this.server = server;
        this.botToken = botToken;
    }

    static DiscordSandbox start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            byte[] secret = new byte[24];
            new SecureRandom().nextBytes(secret);
            DiscordSandbox sandbox = new DiscordSandbox(server, HexFormat.of().formatHex(secret));
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
        faultsLeft.set(count < 0 ? Integer.MAX_VALUE : count);
        fault.set(Fault.FAIL);
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

    public void recover() {
        fault.set(Fault.NONE);
        faultsLeft.set(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!("Bot " + botToken).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
                respond(exchange, 401, "{\"message\": \"401: Unauthorized\", \"code\": 0}");
                return;
            }
            Fault current = fault.get();
            if (current != Fault.NONE && faultsLeft.getAndDecrement() > 0) {
                switch (current) {
                    case RATE_LIMIT -> {
                        double seconds = retryAfter.get().toMillis() / 1000.0;
                        exchange.getResponseHeaders().set("Retry-After", Double.toString(seconds));
                        respond(exchange, 429, JSON.createObjectNode().put("message", "You are being rate limited.")
                                .put("retry_after", seconds).put("global", false).toString());
                    }
                    case REJECT -> respond(exchange, 403, "{\"message\": \"Cannot send messages to this user\", \"code\": 50007}");
                    case HANG -> {
                        sleep(HANG);
                        respond(exchange, 503, "{\"message\": \"upstream unavailable\"}");
                    }
                    default -> respond(exchange, 503, "{\"message\": \"upstream unavailable\"}");
                }
                return;
            }
            String path = exchange.getRequestURI().getPath();
            JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
            if ("POST".equals(exchange.getRequestMethod()) && path.equals("/api/v10/users/@me/channels")) {
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
     * {@code POST /sandbox/faults {"mode": "fail"|"hang"|"rate-limit"|"reject"|"none", "count": n, "retry_after_seconds": s}}
     * plays an outage, a rate limit or a refusal (n &lt; 0: until told otherwise).
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

    @Override
    public void close() {
        server.stop(0);
    }
}
