package dev.umbra.testing;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventCatalog;
import dev.umbra.events.EventCodec;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/** Produces an event exactly as Debezium's outbox router would: its topic, key, JSON value and envelope headers. */
public final class OutboxRecords {

    private OutboxRecords() {
    }

    public static UUID publish(DomainEvent event, Instant occurredAt) {
        UUID eventId = UUID.randomUUID();
        publish(event, eventId, occurredAt);
        return eventId;
    }

    public static void publish(DomainEvent event, UUID eventId, Instant occurredAt) {
        KafkaProbe.produceAll(java.util.List.of(record(event, eventId, occurredAt)));
    }

    /** The record Debezium's outbox router would write for the event, for {@link KafkaProbe#produceAll}. */
    public static org.apache.kafka.clients.producer.ProducerRecord<String, byte[]> record(DomainEvent event, UUID eventId, Instant occurredAt) {
        EventCatalog.Entry entry = EventCatalog.entryOf(event.getClass());
        return KafkaProbe.record(Topics.of(entry.aggregateType()), event.aggregateId(), EventCodec.toJson(event).getBytes(StandardCharsets.UTF_8),
                headers(entry.eventType(), entry.aggregateType(), eventId, occurredAt));
    }

    /** The record of the event at {@code sequence} in its aggregate's stream, as the producer's outbox numbered it. */
    public static org.apache.kafka.clients.producer.ProducerRecord<String, byte[]> record(DomainEvent event, UUID eventId, Instant occurredAt,
            long sequence) {
        EventCatalog.Entry entry = EventCatalog.entryOf(event.getClass());
        Map<String, String> headers = new java.util.HashMap<>(headers(entry.eventType(), entry.aggregateType(), eventId, occurredAt));
        headers.put(EventHeaders.SEQUENCE, Long.toString(sequence));
        return KafkaProbe.record(Topics.of(entry.aggregateType()), event.aggregateId(), EventCodec.toJson(event).getBytes(StandardCharsets.UTF_8),
                headers);
    }

    /**
     * As Debezium publishes it: with the source block whose {@code ts_ms} says when the producer's database committed it, on
     * that database's clock, where {@code occurredAt} is the clock of the replica that wrote it.
     */
    public static UUID publishCommitted(DomainEvent event, Instant occurredAt, Instant committedAt) {
        UUID eventId = UUID.randomUUID();
        EventCatalog.Entry entry = EventCatalog.entryOf(event.getClass());
        Map<String, String> headers = new java.util.HashMap<>(headers(entry.eventType(), entry.aggregateType(), eventId, occurredAt));
        headers.put(EventHeaders.SOURCE, "{\"connector\":\"postgresql\",\"ts_ms\":" + committedAt.toEpochMilli() + "}");
        KafkaProbe.produce(Topics.of(entry.aggregateType()), event.aggregateId(), EventCodec.toJson(event).getBytes(StandardCharsets.UTF_8),
                headers);
        return eventId;
    }

    /** As a producing service's outbox would publish it from inside a trace: with the span's {@code traceparent} header. */
    public static UUID publish(DomainEvent event, Instant occurredAt, String traceParent) {
        UUID eventId = UUID.randomUUID();
        EventCatalog.Entry entry = EventCatalog.entryOf(event.getClass());
        Map<String, String> headers = new java.util.HashMap<>(headers(entry.eventType(), entry.aggregateType(), eventId, occurredAt));
        headers.put(EventHeaders.TRACE_PARENT, traceParent);
        KafkaProbe.produce(Topics.of(entry.aggregateType()), event.aggregateId(), EventCodec.toJson(event).getBytes(StandardCharsets.UTF_8),
                headers);
        return eventId;
    }

    /** Produces many events at once (one producer), as Debezium would; returns their event ids in order. */
    public static java.util.List<UUID> publishAll(java.util.List<? extends DomainEvent> events, Instant occurredAt) {
        java.util.List<UUID> ids = new java.util.ArrayList<>();
        var records = events.stream().map(event -> {
            UUID eventId = UUID.randomUUID();
            ids.add(eventId);
            return record(event, eventId, occurredAt);
        }).toList();
        KafkaProbe.produceAll(records);
        return ids;
    }

    public static Map<String, String> headers(String eventType, String aggregateType, UUID eventId, Instant occurredAt) {
        return Map.of(
                EventHeaders.EVENT_ID, eventId.toString(),
                EventHeaders.EVENT_TYPE, eventType,
                EventHeaders.AGGREGATE_TYPE, aggregateType,
                EventHeaders.OCCURRED_AT, occurredAt.toString(),
                EventHeaders.SCHEMA_VERSION, "1");
    }
}
