package dev.umbra.audit.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.umbra.audit.attribution.Attributions;
import dev.umbra.audit.masking.MaskingSettings;
import dev.umbra.audit.masking.PayloadMasking;
import dev.umbra.events.EventEnvelope;
import dev.umbra.platform.inbox.AnyEventHandler.RecordPosition;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * Stores an event in the audit log, inside the inbox transaction that claims it: masked, with where it
 * was read and its three timestamps (occurred in the world, recorded by its producer's commit as
 * Debezium captured it, processed here), then attributed to its guild.
 */
@ApplicationScoped
public class AuditLog {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String INSERT = "insert into audit_log (event_id, occurred_at, recorded_at, processed_at, aggregate_type, "
            + "aggregate_id, event_type, schema_version, sequence, trace_context, payload, masked_fields, source_topic, "
            + "source_partition, source_offset) values (?1, cast(?2 as timestamptz), cast(?3 as timestamptz), "
            + "cast(?4 as timestamptz), ?5, ?6, ?7, ?8, ?9, cast(?10 as varchar), cast(cast(?11 as text) as jsonb), cast(cast(?12 as text) as jsonb), ?13, ?14, ?15) "
            + "on conflict do nothing";

    private final PayloadMasking masking;
    private final Attributions attributions;
    private final Clock clock;

    public AuditLog(MaskingSettings masking, Attributions attributions, Clock clock) {
        this.masking = PayloadMasking.of(masking);
        this.attributions = attributions;
        this.clock = clock;
    }

    public Uni<Void> record(EventEnvelope envelope, RecordPosition position) {
        PayloadMasking.Masked masked = masking.mask(envelope.payload());
        Instant processedAt = clock.instant();
        return Panache.getSession().chain(session -> session.createNativeQuery(INSERT)
                        .setParameter(1, envelope.eventId())
                        .setParameter(2, envelope.occurredAt().atOffset(ZoneOffset.UTC))
                        .setParameter(3, envelope.recordedAt().atOffset(ZoneOffset.UTC))
                        .setParameter(4, processedAt.atOffset(ZoneOffset.UTC))
                        .setParameter(5, envelope.aggregateType())
                        .setParameter(6, envelope.aggregateId())
                        .setParameter(7, envelope.eventType())
                        .setParameter(8, envelope.schemaVersion())
                        .setParameter(9, envelope.sequence())
                        .setParameter(10, envelope.traceContext())
                        .setParameter(11, json(masked.payload()))
                        .setParameter(12, json(masked.maskedFields()))
                        .setParameter(13, position.topic())
                        .setParameter(14, position.partition())
                        .setParameter(15, position.offset())
                        .executeUpdate())
                // nothing inserted: the row is there already (a replay after this consumer's claims were trimmed)
                .chain(inserted -> inserted == 0 ? Uni.createFrom().voidItem()
                        : attributions.attribute(new Attributions.StoredEvent(envelope.eventId(), envelope.occurredAt(),
                                envelope.recordedAt(), envelope.aggregateType(), envelope.aggregateId(), envelope.payload()), processedAt));
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }
}
