package dev.umbra.events;

/**
 * Kafka header names of the envelope. {@code id} is written by Debezium's outbox router itself;
 * the others come from the outbox columns through {@code table.fields.additional.placement}.
 */
public final class EventHeaders {
    public static final String EVENT_ID = "id";
    public static final String EVENT_TYPE = "eventType";
    public static final String AGGREGATE_TYPE = "aggregateType";
    public static final String OCCURRED_AT = "occurredAt";
    public static final String SCHEMA_VERSION = "schemaVersion";
    public static final String TRACE_PARENT = "traceparent";
    public static final String SEQUENCE = "sequence";

    private EventHeaders() {
    }
}
