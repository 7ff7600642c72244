package dev.umbra.events;

/**
 * Kafka header names of the envelope. {@code id} is written by Debezium's outbox router itself,
 * {@code source} by a {@code HeaderFrom} transform before it; the others come from the outbox columns
 * through {@code table.fields.additional.placement}.
 */
public final class EventHeaders {
    public static final String EVENT_ID = "id";
    public static final String EVENT_TYPE = "eventType";
    public static final String AGGREGATE_TYPE = "aggregateType";
    public static final String OCCURRED_AT = "occurredAt";
    public static final String SCHEMA_VERSION = "schemaVersion";
    public static final String TRACE_PARENT = "traceparent";
    public static final String SEQUENCE = "sequence";
    /**
     * Debezium's {@code source} block as JSON, copied by the connector: its {@code ts_ms} is when the
     * outbox row's transaction committed. A record produced by hand or by a replay has none.
     */
    public static final String SOURCE = "source";
    /**
     * The replay that sent the record (audit's {@code POST /audit/replays}): such a copy has no source block, and its
     * timestamp is its original's commit time as audit recorded it, where a record re-produced by hand has the time
     * it was re-produced.
     */
    public static final String REPLAY = "umbra.replay";

    private EventHeaders() {
    }
}
