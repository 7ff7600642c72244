package dev.umbra.platform.inbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.umbra.events.EventCodec;
import dev.umbra.events.EventDecodingException;
import dev.umbra.events.EventEnvelope;
import dev.umbra.events.EventHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.jboss.logging.Logger;

/** Reads the envelope of a record written by Debezium's outbox event router. */
final class IncomingEvents {

    private static final Logger LOG = Logger.getLogger(IncomingEvents.class);
    private static final Duration UNREADABLE_SOURCE_WARNING_INTERVAL = Duration.ofMinutes(1);
    private static final AtomicLong lastUnreadableSource = new AtomicLong();

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
            Instant committed = committedAt(record);
            return new EventEnvelope(
                    UUID.fromString(required(headers, EventHeaders.EVENT_ID)),
                    required(headers, EventHeaders.AGGREGATE_TYPE),
                    key,
                    required(headers, EventHeaders.EVENT_TYPE),
                    Instant.parse(required(headers, EventHeaders.OCCURRED_AT)),
                    recordedAt(record, committed),
                    committed,
                    sequence(headers),
                    Integer.parseInt(required(headers, EventHeaders.SCHEMA_VERSION)),
                    optional(headers, EventHeaders.TRACE_PARENT),
                    EventCodec.parse(value));
        } catch (IllegalArgumentException | DateTimeParseException e) {
            throw new EventDecodingException("malformed envelope header: " + e.getMessage(), e);
        }
    }

    /**
     * Debezium's source.ts_ms where the record carries a readable source block; a copy's {@value EventHeaders#COMMITTED_AT}
     * header (a replay's: its original's commit as audit recorded it); the timestamp of a replay's copy without it (sent
     * before the header existed, stamped so); null otherwise: a record re-produced by hand without either has the time it
     * was re-produced, which is no commit time.
     */
    private static Instant committedAt(ConsumerRecord<?, byte[]> record) {
        Headers headers = record.headers();
        String source = optional(headers, EventHeaders.SOURCE);
        if (source == null) {
            String committed = optional(headers, EventHeaders.COMMITTED_AT);
            if (committed != null) {
                return Instant.parse(committed);
            }
            // a copy sent by a replay before the header existed was stamped with its original's commit
            return optional(headers, EventHeaders.REPLAY) != null && record.timestamp() >= 0 ? Instant.ofEpochMilli(record.timestamp()) : null;
        }
        try {
            JsonNode committed = EventCodec.parse(source.getBytes(StandardCharsets.UTF_8)).path("ts_ms");
            return committed.isIntegralNumber() ? Instant.ofEpochMilli(committed.longValue()) : null;
        } catch (EventDecodingException notJson) {
            return null;
        }
    }

    /**
     * When the event's transaction committed, as Debezium read it from the source database or a replay's copy
     * says; a record that carries neither (produced by hand) has its timestamp instead. A source block
     * that cannot be read (a Connect worker whose header converter is not the simple one, a header edited by
     * hand) costs the commit time only, never the event: the timestamp stands in, with a WARN a minute.
     */
    private static Instant recordedAt(ConsumerRecord<?, byte[]> record, Instant committed) {
        if (committed != null) {
            return committed;
        }
        Instant read = Instant.ofEpochMilli(record.timestamp());
        if (optional(record.headers(), EventHeaders.SOURCE) == null) {
            return read;
        }
        long now = System.nanoTime();
        long last = lastUnreadableSource.get();
        if ((last == 0 || now - last >= UNREADABLE_SOURCE_WARNING_INTERVAL.toNanos()) && lastUnreadableSource.compareAndSet(last, now)) {
            LOG.warnf("%s-%d@%d: header %s has no ts_ms (is the connector's header.converter SimpleHeaderConverter?); "
                    + "its timestamp stands in for the commit time", record.topic(), record.partition(), record.offset(), EventHeaders.SOURCE);
        }
        return read;
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
