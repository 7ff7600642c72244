package dev.umbra.events.identity;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.USER)
public record UserSessionCreated(
        UUID userId,
        UUID sessionId) implements DomainEvent {

    public UserSessionCreated {
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(sessionId, "sessionId");
    }

    @Override
    public String aggregateId() {
        return userId.toString();
    }
}
