package dev.umbra.events;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One event as it travels: the envelope fields and the payload as JSON.
 *
 * @param eventId        the dedupe key of every consumer
 * @param occurredAt     when it happened in the world
 * @param recordedAt     when its transaction committed (Debezium's source.ts_ms, from the record's {@code source} header;
 *                       the record timestamp when it has none); null before that
 * @param committedAt    the same commit time, only where the record carries Debezium's source block: on the producer's one
 *                       database clock, where {@code occurredAt} is the clock of whichever replica wrote it; null for a record
 *                       without one (produced by hand, re-produced by an operator), whose timestamp may be the re-produce's
 * @param sequence       its position in its aggregate's stream, from 1, assigned by the outbox in the writing
 *                       transaction; 0 before that, or for a record whose producer sent none
 * @param traceContext   W3C traceparent of the request or event that caused it, if any
 */
public record EventEnvelope(
        UUID eventId,
        String aggregateType,
        String aggregateId,
        String eventType,
        Instant occurredAt,
        Instant recordedAt,
        Instant committedAt,
        long sequence,
        int schemaVersion,
        String traceContext,
        JsonNode payload) {

    public EventEnvelope {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(aggregateType, "aggregateType");
        Objects.requireNonNull(aggregateId, "aggregateId");
        Objects.requireNonNull(eventType, "eventType");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(payload, "payload");
    }

    /** A new envelope for an event about to be written to the outbox. */
    public static EventEnvelope wrap(DomainEvent event, Instant occurredAt, String traceContext) {
        EventCatalog.Entry entry = EventCatalog.entryOf(event.getClass());
        return new EventEnvelope(UUID.randomUUID(), entry.aggregateType(), event.aggregateId(), entry.eventType(),
                occurredAt, null, null, 0, entry.schemaVersion(), traceContext, EventCodec.toTree(event));
    }

    /** This envelope with the sequence the outbox assigned. */
    public EventEnvelope withSequence(long assigned) {
        return new EventEnvelope(eventId, aggregateType, aggregateId, eventType, occurredAt, recordedAt, committedAt, assigned,
                schemaVersion, traceContext, payload);
    }

    public <E extends DomainEvent> E payloadAs(Class<E> type) {
        return EventCodec.fromTree(payload, type);
    }
}
