package dev.umbra.platform.inbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.umbra.events.EventCodec;
import dev.umbra.events.EventDecodingException;
import dev.umbra.events.EventEnvelope;
import dev.umbra.events.EventHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/** Reads the envelope of a record written by Debezium's outbox event router. */
final class IncomingEvents {

    private IncomingEvents() {
    }

    static EventEnvelope decode(ConsumerRecord<?, byte[]> record) {
        Headers headers = record.headers();
        String key = record.key() == null ? null : record.key().toString();
        byte[] value = record.value();
        if (key == null) {
            throw new EventDecodingException("record has no key (aggregate id)");
        }
        if (value == null) {
            throw new EventDecodingException("record has no value (payload)");
        }
        try {
            return new EventEnvelope(
                    UUID.fromString(required(headers, EventHeaders.EVENT_ID)),
                    required(headers, EventHeaders.AGGREGATE_TYPE),
                    key,
                    required(headers, EventHeaders.EVENT_TYPE),
                    Instant.parse(required(headers, EventHeaders.OCCURRED_AT)),
                    recordedAt(record),
                    sequence(headers),
                    Integer.parseInt(required(headers, EventHeaders.SCHEMA_VERSION)),
                    optional(headers, EventHeaders.TRACE_PARENT),
                    EventCodec.parse(value));
        } catch (IllegalArgumentException | DateTimeParseException e) {
            throw new EventDecodingException("malformed envelope header: " + e.getMessage(), e);
        }
    }

    /**
     * When the event's transaction committed, as Debezium read it from the source database; a record that
     * carries no source block (produced by a replay or by hand) has it as its timestamp.
     */
    private static Instant recordedAt(ConsumerRecord<?, byte[]> record) {
        String source = optional(record.headers(), EventHeaders.SOURCE);
        if (source == null) {
            return Instant.ofEpochMilli(record.timestamp());
        }
        JsonNode committed;
        try {
            committed = EventCodec.parse(source.getBytes(StandardCharsets.UTF_8)).path("ts_ms");
        } catch (EventDecodingException e) {
            throw new EventDecodingException("header " + EventHeaders.SOURCE + " is not Debezium's source block", e);
        }
        if (!committed.isIntegralNumber()) {
            throw new EventDecodingException("header " + EventHeaders.SOURCE + " has no ts_ms");
        }
        return Instant.ofEpochMilli(committed.longValue());
    }

    /** Records produced before the outbox assigned sequences carry none: 0, "unknown". */
    private static long sequence(Headers headers) {
        String sequence = optional(headers, EventHeaders.SEQUENCE);
        return sequence == null ? 0 : Long.parseLong(sequence);
    }

    static String optional(Headers headers, String name) {
        Header header = headers.lastHeader(name);
        if (header == null || header.value() == null) {
            return null;
        }
        String value = new String(header.value(), StandardCharsets.UTF_8);
        return value.isBlank() ? null : value;
    }

    private static String required(Headers headers, String name) {
        String value = optional(headers, name);
        if (value == null) {
            throw new EventDecodingException("record lacks header " + name);
        }
        return value;
    }
}
