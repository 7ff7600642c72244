package dev.umbra.platform.outbox;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventEnvelope;
import dev.umbra.platform.storage.NativeSelects;
import dev.umbra.platform.trace.TraceContext;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.hibernate.reactive.mutiny.Mutiny;

/**
 * Publishes events through the outbox: the row is inserted inside the caller's transaction, so the
 * event exists exactly when the state change commits. Debezium reads the insert from the write-ahead
 * log; a trigger (platform migration V0_7) deletes the row in the same statement, which keeps the
 * table empty at the cost of no second round trip.
 *
 * <p>The row is written with a plain statement, not as an entity: an entity's persist, flush and
 * remove go through Hibernate Reactive's delete coordinator, which under concurrent requests
 * completes on another event loop than the session's (HR000069) and can leave the request hanging.
 * The outbox row needs no life cycle, and one statement is cheaper on the hot path of every write.
 */
@ApplicationScoped
public class OutboxWriter {

    // The aggregate's next sequence and the row in one statement; the upsert's row lock orders the
    // writers of one aggregate, so sequences follow commit order within it.
    // The payload is bound as text and cast on the server: bound straight to a jsonb parameter, a Java
    // string would be encoded as a JSON string, not as the object it spells.
    private static final String INSERT = """
            with next as (
                insert into aggregate_sequence as s (aggregate_type, aggregate_id, last_sequence)
                values ($2, $3, 1)
                on conflict (aggregate_type, aggregate_id) do update set last_sequence = s.last_sequence + 1
                returning last_sequence)
            insert into outbox_event (id, aggregatetype, aggregateid, type, "timestamp", payload, schema_version,
                                      tracingspancontext, sequence)
            select $1, $2, $3, $4, $5, cast(cast($6 as text) as jsonb), $7, $8, next.last_sequence
            from next
            returning sequence""";

    private final Clock clock;
    private final MeterRegistry registry;

    public OutboxWriter(Clock clock, MeterRegistry registry) {
        this.clock = clock;
        this.registry = registry;
    }

    public Uni<EventEnvelope> publish(DomainEvent event) {
        return publish(event, clock.instant());
    }

    public Uni<EventEnvelope> publish(DomainEvent event, Instant occurredAt) {
        EventEnvelope envelope = EventEnvelope.wrap(event, occurredAt, TraceContext.current());
        return inTransaction().chain(session -> write(session, envelope));
    }

    /** Publishes the events in order, in the caller's transaction. */
    public Uni<List<EventEnvelope>> publishAll(List<? extends DomainEvent> events) {
        Instant occurredAt = clock.instant();
        List<EventEnvelope> envelopes = events.stream()
                .map(event -> EventEnvelope.wrap(event, occurredAt, TraceContext.current()))
                .toList();
        return inTransaction().chain(session -> {
            Uni<List<EventEnvelope>> written = Uni.createFrom().item(List.of());
            for (EventEnvelope envelope : envelopes) {
                written = written.chain(done -> write(session, envelope).map(sequenced -> {
                    List<EventEnvelope> more = new java.util.ArrayList<>(done);
                    more.add(sequenced);
                    return more;
                }));
            }
            return written;
        });
    }

    private static Uni<Mutiny.Session> inTransaction() {
        return Panache.currentTransaction()
                .onItem().ifNull().failWith(() -> new IllegalStateException(
                        "outbox write outside a transaction: call it from a @WithTransaction method"))
                .chain(ignored -> Panache.getSession());
    }

    private Uni<EventEnvelope> write(Mutiny.Session session, EventEnvelope envelope) {
        return NativeSelects.select(session, INSERT, envelope.eventId(), envelope.aggregateType(), envelope.aggregateId(),
                        envelope.eventType(), envelope.occurredAt(), envelope.payload().toString(), envelope.schemaVersion(),
                        envelope.traceContext())
                .map(NativeSelects.single(Long.class))
                .invoke(() -> written(envelope.eventType()))
                .map(envelope::withSequence);
    }

    /** {@code umbra_outbox_events_total{event_type}}; a transaction that rolls back afterwards has counted its rows too. */
    private void written(String eventType) {
        Counter.builder("umbra.outbox.events")
                .description("Events written to the outbox, by type (rows of transactions that later rolled back included)")
                .tag("event_type", eventType)
                .register(registry)
                .increment();
    }
}
