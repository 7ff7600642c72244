package dev.umbra.platform.inbox;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventCodec;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.testing.Database;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.ProducerRecord;

/** BotInstalled records for {@link TestConsumer}'s topic, and what the consumer made of them. */
final class TestEvents {

    static final int PARTITIONS = 3;

    private TestEvents() {
    }

    /** A random guild id ending in {@code suffix}, which tells {@link TestConsumer} how to behave. */
    static String guild(String suffix) {
        return Snowflakes.random().substring(0, 16) + suffix;
    }

    static String guildOnPartition(int partition, String suffix) {
        while (true) {
            String candidate = guild(suffix);
            if (KafkaProbe.partitionOf(candidate, PARTITIONS) == partition) {
                return candidate;
            }
        }
    }

    static ProducerRecord<String, byte[]> installed(String guildId, UUID eventId) {
        return Handling.ONE_AT_A_TIME.record(guildId, eventId);
    }

    /** The test consumer's two kinds of handler, and records of the event type each applies. */
    enum Handling {
        ONE_AT_A_TIME, TOGETHER;

        ProducerRecord<String, byte[]> record(String guildId, UUID eventId) {
            DomainEvent event = this == ONE_AT_A_TIME ? new BotInstalled(guildId, "223456789012345678") : new BotKicked(guildId);
            return KafkaProbe.record(TestConsumer.TOPIC, guildId, EventCodec.toJson(event).getBytes(StandardCharsets.UTF_8),
                    OutboxRecords.headers(event.getClass().getSimpleName(), "guild", eventId, Instant.now()));
        }
    }

    static ProducerRecord<String, byte[]> undecodable(String guildId, UUID eventId) {
        return KafkaProbe.record(TestConsumer.TOPIC, guildId, "{not json".getBytes(StandardCharsets.UTF_8),
                OutboxRecords.headers("BotInstalled", "guild", eventId, Instant.now()));
    }

    static long applications(Database db, Collection<UUID> eventIds) {
        return db.count("select count(*) from applied_event where event_id::text = any(string_to_array(?, ','))", joined(eventIds));
    }

    static long distinctApplications(Database db, Collection<UUID> eventIds) {
        return db.count("select count(distinct event_id) from applied_event where event_id::text = any(string_to_array(?, ','))",
                joined(eventIds));
    }

    static long claims(Database db, Collection<UUID> eventIds) {
        return db.count("select count(*) from processed_event where consumer = ? and event_id::text = any(string_to_array(?, ','))",
                TestConsumer.NAME, joined(eventIds));
    }

    static List<UUID> ids(int count) {
        return java.util.stream.Stream.generate(UUID::randomUUID).limit(count).toList();
    }

    private static String joined(Collection<UUID> ids) {
        return ids.stream().map(UUID::toString).collect(Collectors.joining(","));
    }
}
