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
    /** The replay that sent the record (audit's {@code POST /audit/replays}): such a copy has no source block. */
    public static final String REPLAY = "umbra.replay";
    /**
     * When the event's transaction committed (an ISO-8601 instant), on a copy that has no source block: audit's replay
     * writes its original's commit time as audit recorded it, and a copy re-produced or redriven with its headers keeps it.
     * Not the record's timestamp, which is when the copy was sent: a copy stamped with an old commit time would fall
     * outside the topic's retention at once, and an offset reset "to a time" would take it for an old record.
     */
    public static final String COMMITTED_AT = "umbra.committed-at";

    private EventHeaders() {
    }
}
