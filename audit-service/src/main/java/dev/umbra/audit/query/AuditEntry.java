package dev.umbra.audit.query;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * One stored event as the API shows it.
 *
 * @param guildId      the guild it is attributed to, null while none is known (or for a person's events)
 * @param maskedFields JSON paths of the payload values replaced before storage
 */
public record AuditEntry(UUID eventId, String guildId, String aggregateType, String aggregateId, String eventType, Instant occurredAt,
        Instant recordedAt, Instant processedAt, int schemaVersion, long sequence, JsonNode payload, List<String> maskedFields,
        Source source) {

    /** Where the event was read. */
    public record Source(String topic, int partition, long offset) {
    }
}
