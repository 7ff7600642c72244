package dev.umbra.events.identity;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;
import java.util.UUID;

/**
 * A user signed in. Neither the session's token nor its id travel in clear: {@code sessionRef} is a
 * one-way fingerprint of the session id, enough to tell sessions apart in the audit log.
 */
@EventContract(aggregate = Aggregates.USER)
public record UserSessionCreated(
        UUID userId,
        String sessionRef) implements DomainEvent {

    public UserSessionCreated {
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(sessionRef, "sessionRef");
    }

    @Override
    public String aggregateId() {
        return userId.toString();
    }
}
