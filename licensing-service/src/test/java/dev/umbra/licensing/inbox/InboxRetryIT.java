package dev.umbra.licensing.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.umbra.events.EventCodec;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.platform.inbox.DeadLetters;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.KafkaProbe;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

@QuarkusTest
@TestProfile(InboxRetryIT.FlakyChannel.class)
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "licensing"))
class InboxRetryIT {

    public static class FlakyChannel implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "mp.messaging.incoming.flaky-events.connector", "smallrye-kafka",
                    "mp.messaging.incoming.flaky-events.topic", FlakyConsumer.TOPIC,
                    "mp.messaging.incoming.flaky-events.group.id", "flaky",
                    "umbra.inbox.max-attempts", "4",
                    "umbra.inbox.initial-backoff", "PT0.05S",
                    "umbra.inbox.max-backoff", "PT0.2S",
                    "umbra.inbox.attempt-timeout", "PT6S");
        }
    }

    private static final Database DB = Database.of("licensing");

    @Inject
    FlakyConsumer consumer;

    @Test
    void aFailingHandlerIsRetriedAndItsEventAppliedOnce() {
        String guildId = "1234567890123456" + "02";
        UUID eventId = produce(guildId);

        await().atMost(Duration.ofSeconds(30)).until(() ->
                DB.count("select count(*) from processed_event where consumer = 'flaky' and event_id = ?", eventId) == 1);
        assertThat(consumer.attemptsFor(guildId)).isEqualTo(3);
    }

    @Test
    void aHandlerThatFailsOnEveryAttemptEndsInTheDeadLetterTopicAndTheConsumerCarriesOn() {
        String hopeless = "1234567890123457" + "99";
        UUID hopelessId = produce(hopeless);
        String fine = sharingPartitionWith(hopeless, "00");
        UUID fineId = produce(fine);

        try (KafkaProbe deadLetters = KafkaProbe.read(Topics.deadLetterOf(FlakyConsumer.TOPIC))) {
            var record = deadLetters.awaitRecord(r -> hopelessId.toString().equals(KafkaProbe.header(r, EventHeaders.EVENT_ID)),
                    Duration.ofSeconds(30));
            assertThat(KafkaProbe.header(record, DeadLetters.ERROR_MESSAGE)).isEqualTo("attempt 4 fails");
        }
        await().atMost(Duration.ofSeconds(30)).until(() ->
                DB.count("select count(*) from processed_event where consumer = 'flaky' and event_id = ?", fineId) == 1);
        assertThat(consumer.attemptsFor(hopeless)).isEqualTo(4);
        assertThat(DB.count("select count(*) from processed_event where event_id = ?", hopelessId)).isZero();
    }

    @Test
    void aTransientFaultIsRetriedPastTheAttemptLimitAndNeverDeadLettered() {
        String refused = "7234567890123456" + "12";
        UUID refusedId = produce(refused);
        String behind = sharingPartitionWith(refused, "00");
        UUID behindId = produce(behind);

        await().atMost(Duration.ofSeconds(30)).until(() ->
                DB.count("select count(*) from processed_event where consumer = 'flaky' and event_id = ?", refusedId) == 1);
        assertThat(consumer.attemptsFor(refused)).isEqualTo(13);
        await().atMost(Duration.ofSeconds(30)).until(() ->
                DB.count("select count(*) from processed_event where consumer = 'flaky' and event_id = ?", behindId) == 1);
        try (KafkaProbe deadLetters = KafkaProbe.read(Topics.deadLetterOf(FlakyConsumer.TOPIC))) {
            assertThat(deadLetters.seen()).noneMatch(r -> refusedId.toString().equals(KafkaProbe.header(r, EventHeaders.EVENT_ID)));
        }
    }

    @Test
    void aHungAttemptTimesOutIsRetriedAndTheRecordsBehindItFollow() {
        String hung = "8234567890123456" + "00";
        UUID hungId = produce(hung);
        await().atMost(Duration.ofSeconds(30)).until(() -> consumer.attemptsFor(hung) == 1);
        String behind = sharingPartitionWith(hung, "00");
        UUID behindId = produce(behind);

        await().atMost(Duration.ofSeconds(30)).until(() ->
                DB.count("select count(*) from processed_event where consumer = 'flaky' and event_id = ?", behindId) == 1);
        assertThat(DB.count("select count(*) from processed_event where consumer = 'flaky' and event_id = ?", hungId)).isOne();
        assertThat(consumer.attemptsFor(hung)).isEqualTo(2);
    }

    /** A guild id that fails as often as {@code suffix} says and is read after {@code guildId} (same partition). */
    private static String sharingPartitionWith(String guildId, String suffix) {
        for (long prefix = 1_000_000_000_000_000L; ; prefix++) {
            String candidate = prefix + suffix;
            if (KafkaProbe.partitionOf(candidate, 3) == KafkaProbe.partitionOf(guildId, 3)) {
                return candidate;
            }
        }
    }

    private static UUID produce(String guildId) {
        UUID eventId = UUID.randomUUID();
        KafkaProbe.produce(FlakyConsumer.TOPIC, guildId, EventCodec.toJson(new BotKicked(guildId)).getBytes(StandardCharsets.UTF_8),
                Map.of(EventHeaders.EVENT_ID, eventId.toString(), EventHeaders.EVENT_TYPE, "BotKicked",
                        EventHeaders.AGGREGATE_TYPE, "guild", EventHeaders.OCCURRED_AT, Instant.now().toString(),
                        EventHeaders.SCHEMA_VERSION, "1"));
        return eventId;
    }
}
