package dev.umbra.events.identity;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.USER)
public record UserRegistered(
        UUID userId,
        String discordUserId) implements DomainEvent {

    public UserRegistered {
        Objects.requireNonNull(userId, "userId");
    }

    @Override
    public String aggregateId() {
        return userId.toString();
    }
}
