package dev.umbra.licensing.license;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.events.billing.PaymentSucceeded;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.InboxProbe;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Metrics;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.reactive.messaging.kafka.KafkaClientService;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Resetting licensing's consumers to the start of their topics re-reads everything, changes nothing and emits nothing. */
@QuarkusTest
// a reset replays the topics from the start, the poison earlier classes played on purpose included
@ExpectedLog(category = "dev.umbra.platform.inbox.DeadLetters", message = "dead-lettering")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "licensing"), @ResourceArg(name = "outbox", value = "licensing")})
class OffsetResetIT {

    @InjectDevstack
    Database db;

    @InjectDevstack
    InboxProbe inbox;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Inject
    KafkaClientService kafka;

    @Test
    void reconsumingBothTopicsFromTheBeginningChangesAndEmitsNothing() {
        Instant t = Instant.now();
        List<UUID> history = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String guildId = Snowflakes.random();
            UUID subscription = UUID.randomUUID();
            history.add(OutboxRecords.publish(new BotInstalled(guildId, "223456789012345678"), t));
            history.add(OutboxRecords.publish(new SubscriptionStarted(subscription, guildId, "PRO", t.plus(Duration.ofDays(30))), t.plusSeconds(1)));
            history.add(OutboxRecords.publish(new PaymentSucceeded(subscription, UUID.randomUUID(), t.plus(Duration.ofDays(60))), t.plusSeconds(2)));
            history.add(OutboxRecords.publish(new BotKicked(guildId), t.plusSeconds(3)));
        }
        history.forEach(inbox::awaitProcessed);
        Instant resetAt = Instant.now();
        String untouched = "select count(*) || '/' || coalesce(sum(version), 0) from license where updated_at <= ?";
        String before = db.text(untouched, resetAt);
        long claimsBefore = db.count("select count(*) from processed_event");
        double duplicatesBefore = duplicatesSkipped();

        seekToBeginning("guild-events");
        seekToBeginning("subscription-events");
        // One new guild per partition of each topic: once these are applied, everything before them was read again.
        List<UUID> markers = new ArrayList<>();
        Set<Integer> guildPartitions = new HashSet<>();
        while (guildPartitions.size() < 3) {
            String guildId = Snowflakes.random();
            if (guildPartitions.add(KafkaProbe.partitionOf(guildId, 3))) {
                markers.add(OutboxRecords.publish(new BotInstalled(guildId, "223456789012345678"), Instant.now()));
            }
        }
        Set<Integer> subscriptionPartitions = new HashSet<>();
        while (subscriptionPartitions.size() < 3) {
            UUID subscription = UUID.randomUUID();
            if (subscriptionPartitions.add(KafkaProbe.partitionOf(subscription.toString(), 3))) {
                markers.add(OutboxRecords.publish(new SubscriptionStarted(subscription, Snowflakes.random(), "PRO",
                        Instant.now().plus(Duration.ofDays(30))), Instant.now()));
            }
        }
        markers.forEach(inbox::awaitProcessed);

        assertThat(db.text(untouched, resetAt)).as("licenses written before the reset are not written again").isEqualTo(before);
        assertThat(db.count("select count(*) from processed_event")).isEqualTo(claimsBefore + markers.size());
        assertThat(duplicatesSkipped() - duplicatesBefore).as("the history was read again and skipped").isGreaterThanOrEqualTo(history.size());
        try (KafkaProbe licenseTopic = KafkaProbe.read(Topics.of(Aggregates.LICENSE))) {
            await().atMost(TIMEOUT).until(() -> emittedSince(licenseTopic, resetAt) >= markers.size());
            assertThat(emittedSince(licenseTopic, resetAt)).as("only the markers' new licenses are announced").isEqualTo(markers.size());
        }
    }

    private static double duplicatesSkipped() {
        // Metrics reads past the exemplar a sampled trace (LicenseFlowsIT's) leaves on a counter's line
        double skipped = Metrics.scrape().sum("umbra_inbox_events_total", "consumer=\"licensing\"", "outcome=\"duplicate\"");
        return Double.isNaN(skipped) ? 0 : skipped;
    }

    private static long emittedSince(KafkaProbe topic, Instant since) {
        return topic.seen().stream()
                .filter(r -> Instant.parse(KafkaProbe.header(r, EventHeaders.OCCURRED_AT)).isAfter(since))
                .count();
    }

    /** Every Kafka consumer of the channel (there is one per partition with concurrency) goes back to the beginning. */
    private void seekToBeginning(String channel) {
        Set<TopicPartition> all = new HashSet<>();
        for (String name : kafka.getConsumerChannels()) {
            if (!name.equals(channel) && !name.startsWith(channel + "$")) {
                continue;
            }
            for (var consumer : kafka.<String, byte[]>getConsumers(name)) {
                Set<TopicPartition> assigned = consumer.getAssignments().await().atMost(Duration.ofSeconds(10));
                all.addAll(assigned);
                consumer.seekToBeginning(assigned).await().atMost(Duration.ofSeconds(10));
            }
        }
        assertThat(all).hasSize(3);
    }
}
