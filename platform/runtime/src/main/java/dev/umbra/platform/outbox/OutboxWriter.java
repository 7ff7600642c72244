package dev.umbra.platform.outbox;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventEnvelope;
import dev.umbra.platform.trace.TraceContext;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;

/**
 * Publishes events through the outbox: the row is inserted and deleted inside the caller's
 * transaction, so the event exists exactly when the state change commits. Debezium reads the
 * insert from the write-ahead log; the delete keeps the table empty.
 */
@ApplicationScoped
public class OutboxWriter {

    private final Clock clock;

    public OutboxWriter(Clock clock) {
        this.clock = clock;
    }

    public Uni<EventEnvelope> publish(DomainEvent event) {
        return publish(event, clock.instant());
    }

    public Uni<EventEnvelope> publish(DomainEvent event, Instant occurredAt) {
        EventEnvelope envelope = EventEnvelope.wrap(event, occurredAt, TraceContext.current());
        OutboxEvent row = OutboxEvent.of(envelope);
        return Panache.currentTransaction()
                .onItem().ifNull().failWith(() -> new IllegalStateException(
                        "outbox write outside a transaction: call it from a @WithTransaction method"))
                .chain(ignored -> Panache.getSession())
                .chain(session -> session.persist(row)
                        .chain(session::flush)
                        .chain(() -> session.remove(row)))
                .replaceWith(envelope);
    }
}
