package dev.umbra.audit.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.umbra.audit.attribution.Attributions;
import dev.umbra.audit.masking.MaskingSettings;
import dev.umbra.audit.masking.PayloadMasking;
import dev.umbra.events.EventEnvelope;
import dev.umbra.platform.inbox.AnyEventHandler;
import dev.umbra.platform.storage.NativeSelects;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Stores events in the audit log, inside the inbox transaction that claims them: masked, with where each
 * was read and its three timestamps (occurred in the world, recorded by its producer's commit as
 * Debezium captured it, processed here), then attributed to its guild. A run of records is stored, and
 * those that name their guild (most do) attributed, by one statement. Then, in record order: what each
 * stretch of consecutive events that named their guild teaches (their aggregates' guilds, and so the
 * guild of the events that waited) is learned at once, and each event that does not name its guild is
 * attributed through another, or waits for it. A run thus ends as its events one after the other would
 * leave it ({@link Attributions#afterAttributedToNamed} says on what condition a stretch does).
 */
@ApplicationScoped
public class AuditLog {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Returns the ids of the rows it stored: none for an event stored already (a replay after this consumer's claims were trimmed). */
    private static final String STORE_ALL = """
            with event as (
                select * from unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::int[],
                                     $8::bigint[], $9::text[], $10::text[], $11::text[], $12::text[], $13::int[], $14::bigint[], $15::text[])
                    as e(event_id, occurred_at, recorded_at, aggregate_type, aggregate_id, event_type, schema_version, sequence,
                         trace_context, payload, masked_fields, source_topic, source_partition, source_offset, named_guild)),
            stored as (
                insert into audit_log (event_id, occurred_at, recorded_at, processed_at, aggregate_type, aggregate_id, event_type,
                                       schema_version, sequence, trace_context, payload, masked_fields, source_topic, source_partition,
                                       source_offset)
                select event_id, occurred_at, recorded_at, cast($16 as timestamptz), aggregate_type, aggregate_id, event_type, schema_version,
                       sequence, trace_context, cast(payload as jsonb), cast(masked_fields as jsonb), source_topic, source_partition,
                       source_offset
                from event
                on conflict do nothing
                returning event_id, occurred_at),
            attributed as (
                insert into audit_guild (event_id, occurred_at, guild_id, attributed_at, known_at)
                select s.event_id, s.occurred_at, e.named_guild, cast($16 as timestamptz), e.recorded_at
                from stored s join event e on e.event_id = s.event_id
                where e.named_guild is not null
                on conflict do nothing)
            select event_id from stored""";

    private final PayloadMasking masking;
    private final Attributions attributions;
    private final Clock clock;

    public AuditLog(MaskingSettings masking, Attributions attributions, Clock clock) {
        this.masking = PayloadMasking.of(masking);
        this.attributions = attributions;
        this.clock = clock;
    }

    /** An event as stored, and the guild it names, if it does. */
    private record Stored(Attributions.StoredEvent event, Optional<String> namedGuild) {
    }

    public Uni<Void> recordAll(List<AnyEventHandler.Received> received) {
        Instant processedAt = clock.instant();
        int count = received.size();
        UUID[] ids = new UUID[count];
        Instant[] occurred = new Instant[count];
        Instant[] recorded = new Instant[count];
        String[] aggregateTypes = new String[count];
        String[] aggregateIds = new String[count];
        String[] eventTypes = new String[count];
        Integer[] schemaVersions = new Integer[count];
        Long[] sequences = new Long[count];
        String[] traceContexts = new String[count];
        String[] payloads = new String[count];
        String[] maskedFields = new String[count];
        String[] topics = new String[count];
        Integer[] partitions = new Integer[count];
        Long[] offsets = new Long[count];
        String[] namedGuilds = new String[count];
        List<Stored> events = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            EventEnvelope envelope = received.get(i).envelope();
            AnyEventHandler.RecordPosition position = received.get(i).position();
            PayloadMasking.Masked masked = masking.mask(envelope.payload());
            Attributions.StoredEvent event = new Attributions.StoredEvent(envelope.eventId(), envelope.occurredAt(), envelope.recordedAt(),
                    envelope.aggregateType(), envelope.aggregateId(), envelope.payload());
            Optional<String> named = Attributions.namedGuild(event);
            events.add(new Stored(event, named));
            ids[i] = envelope.eventId();
            occurred[i] = envelope.occurredAt();
            recorded[i] = envelope.recordedAt();
            aggregateTypes[i] = envelope.aggregateType();
            aggregateIds[i] = envelope.aggregateId();
            eventTypes[i] = envelope.eventType();
            schemaVersions[i] = envelope.schemaVersion();
            sequences[i] = envelope.sequence();
            traceContexts[i] = envelope.traceContext();
            payloads[i] = json(masked.payload());
            maskedFields[i] = json(masked.maskedFields());
            topics[i] = position.topic();
            partitions[i] = position.partition();
            offsets[i] = position.offset();
            namedGuilds[i] = named.orElse(null);
        }
        return Panache.getSession()
                .chain(session -> NativeSelects.select(session, STORE_ALL, ids, occurred, recorded, aggregateTypes, aggregateIds, eventTypes,
                        schemaVersions, sequences, traceContexts, payloads, maskedFields, topics, partitions, offsets, namedGuilds, processedAt))
                .map(NativeSelects.column(UUID.class))
                .chain(storedIds -> {
                    Set<UUID> stored = new HashSet<>(storedIds);
                    return attributeInOrder(events.stream().filter(event -> stored.contains(event.event().eventId())).toList(), processedAt, 0);
                });
    }

    /** From {@code from} on: the stretch of events that named their guild there, or the event that did not. */
    private Uni<Void> attributeInOrder(List<Stored> stored, Instant now, int from) {
        if (from == stored.size()) {
            return Uni.createFrom().voidItem();
        }
        if (stored.get(from).namedGuild().isEmpty()) {
            return attributions.attribute(stored.get(from).event(), now).chain(() -> attributeInOrder(stored, now, from + 1));
        }
        List<Attributions.Named> stretch = new ArrayList<>();
        int next = from;
        while (next < stored.size() && stored.get(next).namedGuild().isPresent()) {
            stretch.add(new Attributions.Named(stored.get(next).event(), stored.get(next).namedGuild().get()));
            next++;
        }
        int after = next;
        return attributions.afterAttributedToNamed(stretch, now).chain(() -> attributeInOrder(stored, now, after));
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }
}
