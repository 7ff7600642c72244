package dev.umbra.platform.inbox;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventEnvelope;
import io.smallrye.mutiny.Uni;

/** Applies one event. It runs inside the inbox transaction: its writes and outbox events commit with the dedupe row. */
@FunctionalInterface
public interface EventHandler<E extends DomainEvent> {
    Uni<Void> handle(E event, EventEnvelope envelope);
}
