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
import java.nio.ByteBuffer;
import java.time.Duration;
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

    public DiscordMessenger(@RestClient DiscordApi discord, @Identifier(CIRCUIT) TypedGuard<Uni<String>> guard,
            CircuitBreakerMaintenance circuits) {
        this.discord = discord;
        this.guard = guard;
        this.circuits = circuits;
    }

    @Produces
    @Identifier(CIRCUIT)
    @ApplicationScoped
    static TypedGuard<Uni<String>> guard(@ConfigProperty(name = "guild.notifications.circuit.delay") Duration delay) {
        return TypedGuard.create(new TypeLiteral<Uni<String>>() {
                })
                .withTimeout().duration(4, ChronoUnit.SECONDS).done()
                .withCircuitBreaker().name(CIRCUIT).requestVolumeThreshold(4).failureRatio(0.5)
                .delay(delay.toMillis(), ChronoUnit.MILLIS).successThreshold(1).done()
                .build();
    }

    /** False while the circuit is open. The circuit exists from the first call on; before it, Discord is presumed up. */
    boolean available() {
        try {
            return circuits.currentState(CIRCUIT) != CircuitBreakerState.OPEN;
        } catch (IllegalArgumentException notCalledYet) {
            return true;
        }
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
