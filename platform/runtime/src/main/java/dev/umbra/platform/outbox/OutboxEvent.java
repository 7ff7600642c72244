package dev.umbra.platform.outbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.umbra.events.EventEnvelope;
import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/** A row of Debezium's outbox contract; column names are the ones the outbox event router reads. */
@Entity
@Table(name = "outbox_event")
public class OutboxEvent extends PanacheEntityBase {

    @Id
    public UUID id;

    @Column(name = "aggregatetype", nullable = false)
    public String aggregateType;

    @Column(name = "aggregateid", nullable = false)
    public String aggregateId;

    @Column(name = "type", nullable = false)
    public String type;

    /** When the event happened in the world (occurred_at of the envelope). */
    @Column(name = "\"timestamp\"", nullable = false)
    public Instant timestamp;

    @JdbcTypeCode(SqlTypes.JSON)
    @Column(name = "payload", nullable = false, columnDefinition = "jsonb")
    public JsonNode payload;

    @Column(name = "schema_version", nullable = false)
    public int schemaVersion;

    @Column(name = "tracingspancontext")
    public String tracingSpanContext;

    static OutboxEvent of(EventEnvelope envelope) {
        OutboxEvent row = new OutboxEvent();
        row.id = envelope.eventId();
        row.aggregateType = envelope.aggregateType();
        row.aggregateId = envelope.aggregateId();
        row.type = envelope.eventType();
        row.timestamp = envelope.occurredAt();
        row.payload = envelope.payload();
        row.schemaVersion = envelope.schemaVersion();
        row.tracingSpanContext = envelope.traceContext();
        return row;
    }
}
