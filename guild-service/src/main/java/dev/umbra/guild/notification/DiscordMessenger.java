package dev.umbra.guild.notification;

import dev.umbra.guild.notification.DiscordApi.NewMessage;
import dev.umbra.guild.notification.DiscordApi.OpenChannel;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.faulttolerance.api.CircuitBreakerState;
import io.smallrye.faulttolerance.api.TypedGuard;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.util.TypeLiteral;
import jakarta.ws.rs.WebApplicationException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.rest.client.inject.RestClient;

/**
 * Sends a direct message through Discord's API behind a timeout and a circuit breaker: while Discord
 * is down the dispatcher stops calling it, instead of spending every message's attempts on it.
 */
@ApplicationScoped
public class DiscordMessenger {

    static final String CIRCUIT = "discord";

    private final DiscordApi discord;
    private final TypedGuard<Uni<String>> guard;
    private final CircuitBreakerMaintenance circuits;
    private final Duration delay;
    private final Clock clock;
    /** When the circuit was first seen open, or a round was last let through while it stayed open; null while it is not. */
    private Instant openSeenAt;

    public DiscordMessenger(@RestClient DiscordApi discord, @Identifier(CIRCUIT) TypedGuard<Uni<String>> guard,
            CircuitBreakerMaintenance circuits, @ConfigProperty(name = "guild.notifications.circuit.delay") Duration delay, Clock clock) {
        this.discord = discord;
        this.guard = guard;
        this.circuits = circuits;
        this.delay = delay;
        this.clock = clock;
    }

    @Produces
    @Identifier(CIRCUIT)
    @ApplicationScoped
    static TypedGuard<Uni<String>> guard(@ConfigProperty(name = "guild.notifications.circuit.delay") Duration delay) {
        return TypedGuard.create(new TypeLiteral<Uni<String>>() {
                })
                .withTimeout().duration(4, ChronoUnit.SECONDS).done()
                .withCircuitBreaker().name(CIRCUIT).requestVolumeThreshold(4).failureRatio(0.5)
                .delay(delay.toMillis(), ChronoUnit.MILLIS).successThreshold(1).when(DiscordMessenger::discordAway).done()
                .build();
    }

    /**
     * What the circuit counts: Discord not answering in time, not reachable, failing (5xx), rate-limiting us
     * (429) or refusing the bot's token (401: every message would fail alike until it is fixed). A refusal of
     * one message (a 403 for a user who takes no DMs, a 404) is that message's answer: it must not stop every
     * other owner's messages.
     */
    static boolean discordAway(Throwable error) {
        if (error instanceof WebApplicationException answered && answered.getResponse() != null) {
            int status = answered.getResponse().getStatus();
            return status == 401 || status == 429 || status >= 500;
        }
        return true;
    }

    /**
     * False while the circuit is open, except once per circuit delay: the breaker leaves OPEN on a timer
     * task, and should that task be late (its executor busy), a call made after the delay moves it to
     * half-open itself, so the dispatcher never waits on the timer alone. The circuit exists from the
     * first call on; before it, Discord is presumed up.
     */
    synchronized boolean available() {
        CircuitBreakerState state;
        try {
            state = circuits.currentState(CIRCUIT);
        } catch (IllegalArgumentException notCalledYet) {
            return true;
        }
        if (state != CircuitBreakerState.OPEN) {
            openSeenAt = null;
            return true;
        }
        Instant now = clock.instant();
        if (openSeenAt == null) {
            openSeenAt = now;
            return false;
        }
        if (now.isBefore(openSeenAt.plus(delay))) {
            return false;
        }
        openSeenAt = now;
        return true;
    }

    /** Sends {@code content} to the Discord user; the message's id makes the nonce, so a retry cannot post it twice. Returns Discord's message id. */
    Uni<String> send(String recipientDiscordId, String content, UUID messageId) {
        return guard.get(() -> discord.openDirectMessage(new OpenChannel(recipientDiscordId))
                .chain(channel -> discord.send(channel.path("id").asText(), new NewMessage(content, nonce(messageId), true)))
                .map(message -> message.path("id").asText()));
    }

    /** Discord's nonce is at most 25 characters: the UUID's 16 bytes in URL-safe base64. */
    static String nonce(UUID id) {
        ByteBuffer bytes = ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }
}
