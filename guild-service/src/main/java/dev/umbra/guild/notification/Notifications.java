package dev.umbra.guild.notification;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventEnvelope;
import dev.umbra.platform.inbox.RejectedEventException;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.util.Set;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Turns events a guild's owner must hear about into integration-outbox rows, inside the inbox
 * transaction: the row commits together with the event's dedupe row, so one event is one message.
 */
@ApplicationScoped
public class Notifications {

    /** Payload fields that name people; a notification's parameters never carry them. */
    private static final Set<String> PERSONAL_FIELDS = Set.of("suspects", "user_id", "discord_user_id", "installer_user_id",
            "old_owner_id", "new_owner_id");

    private final Clock clock;
    private final int maxAttempts;

    public Notifications(Clock clock, @ConfigProperty(name = "guild.notifications.max-attempts") int maxAttempts) {
        this.clock = clock;
        this.maxAttempts = maxAttempts;
    }

    /** An event that introduces an aggregate of another service: remember its guild, and tell the owner if asked. */
    Uni<Void> introduce(EventEnvelope envelope, String guildId, boolean notify) {
        Uni<Void> remembered = GuildOf.remember(envelope.aggregateType(), envelope.aggregateId(), guildId);
        return notify ? remembered.chain(() -> enqueue(guildId, envelope)) : remembered;
    }

    /** An event about an aggregate introduced earlier: its guild's owner is told. */
    <E extends DomainEvent> Uni<Void> notifyOwnerOf(E event, EventEnvelope envelope) {
        return GuildOf.guildOf(envelope.aggregateType(), envelope.aggregateId()).chain(guildId -> {
            if (guildId == null) {
                return Uni.createFrom().failure(new RejectedEventException("no guild known for " + envelope.aggregateType() + " "
                        + envelope.aggregateId() + ": the event that introduced it was never applied"));
            }
            return enqueue(guildId, envelope);
        });
    }

    Uni<Void> enqueue(String guildId, EventEnvelope envelope) {
        Instant now = clock.instant();
        NotificationMessage message = new NotificationMessage();
        message.outboxId = envelope.eventId();
        message.aggregateType = envelope.aggregateType();
        message.aggregateId = envelope.aggregateId();
        message.eventType = envelope.eventType();
        message.targetProvider = NotificationMessage.DISCORD;
        message.payload = payload(guildId, envelope.payload());
        message.status = NotificationStatus.PENDING.column();
        message.maxAttempts = maxAttempts;
        message.nextAttemptAt = now;
        message.createdAt = now;
        return message.persist().replaceWithVoid();
    }

    private static JsonNode payload(String guildId, JsonNode eventPayload) {
        ObjectNode params = eventPayload.deepCopy();
        params.remove(PERSONAL_FIELDS);
        ObjectNode payload = JsonNodeFactory.instance.objectNode();
        payload.put("guild_id", guildId);
        payload.set("params", params);
        return payload;
    }
}
