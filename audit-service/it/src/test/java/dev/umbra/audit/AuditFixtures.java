package dev.umbra.audit;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventCatalog;
import dev.umbra.events.EventCodec;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.testing.Database;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.OutboxRecords;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Events as Debezium's outbox router produces them, with ids the test chooses (to produce one twice), and reads of the audit database. */
public final class AuditFixtures {


    private AuditFixtures() {
    }

    /** One event as a record; the same id twice is the same event delivered twice. */
    public static ProducerRecord<String, byte[]> record(DomainEvent event, UUID eventId, Instant occurredAt) {
        EventCatalog.Entry entry = EventCatalog.entryOf(event.getClass());
        return KafkaProbe.record(Topics.of(entry.aggregateType()), event.aggregateId(), EventCodec.toJson(event).getBytes(StandardCharsets.UTF_8),
                OutboxRecords.headers(entry.eventType(), entry.aggregateType(), eventId, occurredAt));
    }

    /** A record of any aggregate and event type, known to the catalogue or not. */
    public static ProducerRecord<String, byte[]> record(String aggregateType, String aggregateId, String eventType, String payloadJson,
            UUID eventId, Instant occurredAt) {
        return KafkaProbe.record(Topics.of(aggregateType), aggregateId, payloadJson.getBytes(StandardCharsets.UTF_8),
                OutboxRecords.headers(eventType, aggregateType, eventId, occurredAt));
    }

    /**
     * The record as Debezium would have produced it for a transaction committed at {@code recordedAt}: its source
     * block in a header, whose ts_ms is the commit, and the record's timestamp a little later, when Debezium read it.
     */
    public static ProducerRecord<String, byte[]> recordedAt(ProducerRecord<String, byte[]> record, Instant recordedAt) {
        ProducerRecord<String, byte[]> read = new ProducerRecord<>(record.topic(), null, recordedAt.plusMillis(250).toEpochMilli(),
                record.key(), record.value(), record.headers());
        read.headers().add(EventHeaders.SOURCE, ("{\"connector\":\"postgresql\",\"ts_ms\":" + recordedAt.toEpochMilli() + "}")
                .getBytes(StandardCharsets.UTF_8));
        return read;
    }

    public static long stored(Database db, UUID eventId) {
        return db.count("select count(*) from audit_log where event_id = ?", eventId);
    }

    /** The guild an event is attributed to, or null. */
    public static String guildOf(Database db, UUID eventId) {
        return db.count("select count(*) from audit_guild where event_id = ?", eventId) == 0 ? null
                : db.text("select guild_id from audit_guild where event_id = ?", eventId);
    }
}
