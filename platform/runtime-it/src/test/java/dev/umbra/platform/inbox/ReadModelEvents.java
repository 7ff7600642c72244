package dev.umbra.platform.inbox;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventCatalog;
import dev.umbra.events.EventCodec;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.testing.Database;
import dev.umbra.testing.OutboxRecords;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Records for {@link ReadModelConsumer}, and what its read models hold. */
final class ReadModelEvents {

    private ReadModelEvents() {
    }

    /**
     * The event on the partition given rather than its key's: events of one aggregate on several
     * partitions are applied by several transactions at once, as a replay from a dead-letter topic would.
     */
    static ProducerRecord<String, byte[]> onPartition(int partition, DomainEvent event, UUID eventId, long sequence) {
        EventCatalog.Entry entry = EventCatalog.entryOf(event.getClass());
        Map<String, String> headers = new HashMap<>(OutboxRecords.headers(entry.eventType(), entry.aggregateType(), eventId, Instant.now()));
        headers.put(EventHeaders.SEQUENCE, Long.toString(sequence));
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(Topics.of(entry.aggregateType()), partition, event.aggregateId(),
                EventCodec.toJson(event).getBytes(StandardCharsets.UTF_8));
        headers.forEach((name, value) -> record.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
        return record;
    }

    static long claims(Database db, java.util.Collection<UUID> eventIds) {
        return db.count("select count(*) from processed_event where consumer = ? and event_id::text = any(string_to_array(?, ','))",
                ReadModelConsumer.NAME, String.join(",", eventIds.stream().map(UUID::toString).toList()));
    }

    /** Rows that give the aggregate this guild. */
    static long mappings(Database db, String aggregateType, String aggregateId, String guildId) {
        return db.count("select count(*) from aggregate_guild where aggregate_type = ? and aggregate_id = ? and guild_id = ?",
                aggregateType, aggregateId, guildId);
    }

    static String licensePlan(Database db, UUID licenseId) {
        return db.text("select coalesce((select coalesce(guild_id, '-') || ' ' || coalesce(plan, '-') || ' ' || coalesce(status, '-') "
                + "from license_plan where license_id = ?::uuid), 'none')", licenseId.toString());
    }
}
