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
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
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

    // Several events in one statement: each aggregate's sequence moves by its count of events (one upsert
    // per aggregate, in a fixed order so that two writers lock rows in the same order), and the events
    // take the numbers below it in their order. Rows go in in the list's order: Debezium reads them so.
    private static final String INSERT_ALL = """
            with event as (
                select * from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::int[],
                                     $8::text[]) with ordinality
                    as e(id, aggregate_type, aggregate_id, type, occurred_at, payload, schema_version, trace_context, position)),
            next as (
                insert into aggregate_sequence as s (aggregate_type, aggregate_id, last_sequence)
                select aggregate_type, aggregate_id, count(*) from event
                group by aggregate_type, aggregate_id order by aggregate_type, aggregate_id
                on conflict (aggregate_type, aggregate_id) do update set last_sequence = s.last_sequence + excluded.last_sequence
                returning aggregate_type, aggregate_id, last_sequence)
            insert into outbox_event (id, aggregatetype, aggregateid, type, "timestamp", payload, schema_version,
                                      tracingspancontext, sequence)
            select e.id, e.aggregate_type, e.aggregate_id, e.type, e.occurred_at, cast(e.payload as jsonb), e.schema_version,
                   e.trace_context,
                   n.last_sequence - count(*) over same_aggregate + row_number() over (same_aggregate order by e.position)
            from event e join next n on n.aggregate_type = e.aggregate_type and n.aggregate_id = e.aggregate_id
            window same_aggregate as (partition by e.aggregate_type, e.aggregate_id)
            order by e.position
            returning id, sequence""";

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

    /** Publishes the events in order, in the caller's transaction, with one statement. */
    public Uni<List<EventEnvelope>> publishAll(List<? extends DomainEvent> events) {
        Instant occurredAt = clock.instant();
        String traceContext = TraceContext.current();
        return publishInOrder(events.stream().map(event -> new Publication(event, occurredAt, traceContext)).toList());
    }

    /** An event to publish: when it happened, and the {@code traceparent} of what caused it (null: none). */
    public record Publication(DomainEvent event, Instant occurredAt, String traceContext) {
    }

    /** Publishes the events in order, in the caller's transaction, with one statement: a handler of many events at once writes theirs so. */
    public Uni<List<EventEnvelope>> publishInOrder(List<Publication> publications) {
        if (publications.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        List<EventEnvelope> envelopes = publications.stream()
                .map(p -> EventEnvelope.wrap(p.event(), p.occurredAt(), p.traceContext()))
                .toList();
        int count = envelopes.size();
        UUID[] ids = new UUID[count];
        String[] aggregateTypes = new String[count];
        String[] aggregateIds = new String[count];
        String[] types = new String[count];
        Instant[] occurred = new Instant[count];
        String[] payloads = new String[count];
        Integer[] schemaVersions = new Integer[count];
        String[] traceContexts = new String[count];
        for (int i = 0; i < count; i++) {
            EventEnvelope envelope = envelopes.get(i);
            ids[i] = envelope.eventId();
            aggregateTypes[i] = envelope.aggregateType();
            aggregateIds[i] = envelope.aggregateId();
            types[i] = envelope.eventType();
            occurred[i] = envelope.occurredAt();
            payloads[i] = envelope.payload().toString();
            schemaVersions[i] = envelope.schemaVersion();
            traceContexts[i] = envelope.traceContext();
        }
        return inTransaction()
                .chain(session -> NativeSelects.select(session, INSERT_ALL, ids, aggregateTypes, aggregateIds, types, occurred, payloads,
                        schemaVersions, traceContexts))
                .map(rows -> {
                    Map<UUID, Long> sequences = new HashMap<>();
                    rows.forEach(row -> sequences.put(NativeSelects.value(row[0], UUID.class), NativeSelects.value(row[1], Long.class)));
                    return envelopes.stream().map(envelope -> {
                        written(envelope.eventType());
                        return envelope.withSequence(sequences.get(envelope.eventId()));
                    }).toList();
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
