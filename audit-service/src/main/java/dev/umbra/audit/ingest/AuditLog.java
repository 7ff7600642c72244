package dev.umbra.audit.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.umbra.audit.attribution.Attributions;
import dev.umbra.audit.masking.MaskingSettings;
import dev.umbra.audit.masking.PayloadMasking;
import dev.umbra.events.EventEnvelope;
import dev.umbra.platform.inbox.AnyEventHandler.RecordPosition;
import dev.umbra.platform.storage.NativeSelects;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Stores an event in the audit log, inside the inbox transaction that claims it: masked, with where it
 * was read and its three timestamps (occurred in the world, recorded by its producer's commit as
 * Debezium captured it, processed here), then attributed to its guild. An event that names its guild (most
 * do) is stored and attributed by one statement.
 */
@ApplicationScoped
public class AuditLog {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STORE = "insert into audit_log (event_id, occurred_at, recorded_at, processed_at, aggregate_type, "
            + "aggregate_id, event_type, schema_version, sequence, trace_context, payload, masked_fields, source_topic, "
            + "source_partition, source_offset) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, cast($10 as varchar), "
            + "cast(cast($11 as text) as jsonb), cast(cast($12 as text) as jsonb), $13, $14, $15) "
            + "on conflict do nothing returning event_id, occurred_at";
    /** How many rows it stored: none when the row is there already (a replay after this consumer's claims were trimmed). */
    private static final String STORED = "with stored as (" + STORE + ") select count(*) from stored";
    /** The same, and the stored row attributed to the guild the event names ($16), known since its recording. */
    private static final String STORED_AND_ATTRIBUTED = "with stored as (" + STORE + "), "
            + "attributed as (insert into audit_guild (event_id, occurred_at, guild_id, attributed_at, known_at) "
            + "select event_id, occurred_at, cast($16 as varchar), cast($4 as timestamptz), cast($3 as timestamptz) "
            + "from stored on conflict do nothing) "
            + "select count(*) from stored";

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
        Attributions.StoredEvent event = new Attributions.StoredEvent(envelope.eventId(), envelope.occurredAt(), envelope.recordedAt(),
                envelope.aggregateType(), envelope.aggregateId(), envelope.payload());
        Optional<String> named = Attributions.namedGuild(event);
        List<Object> arguments = new ArrayList<>(List.of(envelope.eventId(), envelope.occurredAt(), envelope.recordedAt(), processedAt,
                envelope.aggregateType(), envelope.aggregateId(), envelope.eventType(), envelope.schemaVersion()));
        arguments.add(envelope.sequence());
        arguments.add(envelope.traceContext());
        arguments.addAll(List.of(json(masked.payload()), json(masked.maskedFields()), position.topic(), position.partition(),
                position.offset()));
        named.ifPresent(arguments::add);
        return Panache.getSession()
                .chain(session -> NativeSelects.select(session, named.isPresent() ? STORED_AND_ATTRIBUTED : STORED, arguments.toArray()))
                .map(NativeSelects.single(Long.class))
                .chain(stored -> stored == 0 ? Uni.createFrom().voidItem()
                        : named.map(guildId -> attributions.afterAttributedToNamed(event, guildId, processedAt))
                                .orElseGet(() -> attributions.attribute(event, processedAt)));
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }
}
