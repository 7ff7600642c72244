package dev.umbra.e2e;

import static dev.umbra.e2e.SystemClient.TIMEOUT;
import static dev.umbra.e2e.SystemClient.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.e2e.SystemClient.Subscribed;
import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.testing.KafkaProbe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Replay as operators do it with Kafka UI: re-producing records that were already applied, same key,
 * value and headers, changes nothing anywhere: no state, no new event, no second message, no charge.
 */
class ReplayIT {

    private final SystemClient umbra = new SystemClient();

    @AfterAll
    static void logsAreClean() {
        RunningSystem.assertCleanLogs();
    }

    @Test
    void reProducingEveryRecordOfAKickedSubscriptionChangesNothingAnywhere() {
        Subscribed paid = umbra.subscribedToPro();
        await().atMost(TIMEOUT).untilAsserted(() -> umbra.entitlements(paid.guildId()).body("entitledPlan", equalTo("PRO")));
        String licenseId = umbra.license(paid.guildId()).extract().path("licenseId");
        umbra.kick(paid.guildId());
        await().atMost(TIMEOUT).until(() -> umbra.toldTo(paid.owner()).contains("Umbra is paused for your server (BOT_KICKED)."));
        List<ConsumerRecord<String, byte[]>> guildEvents = records(Topics.of(Aggregates.GUILD), paid.guildId(), "BotKicked");
        List<ConsumerRecord<String, byte[]>> subscriptionEvents = records(Topics.of(Aggregates.SUBSCRIPTION), paid.subscription().toString(),
                "SubscriptionSuspended");
        List<ConsumerRecord<String, byte[]>> licenseEvents = records(Topics.of(Aggregates.LICENSE), licenseId, "LicenseSuspended");
        SystemClient.awaitAllConsumed();
        List<String> told = umbra.toldTo(paid.owner());
        String entitlements = umbra.entitlements(paid.guildId()).extract().asString();
        String subscription = umbra.subscription(paid).extract().asString();
        int charges = umbra.chargesOf(paid.subscription()).size();

        List<ConsumerRecord<String, byte[]>> replayed = new ArrayList<>(guildEvents);
        replayed.addAll(subscriptionEvents);
        replayed.addAll(licenseEvents);
        KafkaProbe.produceAll(replayed.stream()
                .map(r -> new ProducerRecord<>(r.topic(), null, r.key(), r.value(), r.headers()))
                .toList());
        SystemClient.awaitAllConsumed();

        assertThat(umbra.entitlements(paid.guildId()).extract().asString()).isEqualTo(entitlements);
        assertThat(umbra.subscription(paid).extract().asString()).isEqualTo(subscription);
        assertThat(umbra.chargesOf(paid.subscription())).hasSize(charges);
        // a second message would leave through guild's work queue a moment after its event was consumed
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> umbra.toldTo(paid.owner()).equals(told));
        // each topic holds the originals and their copies, and nothing that any consumer published in answer
        assertThat(eventIds(records(Topics.of(Aggregates.LICENSE), licenseId, "LicenseSuspended")))
                .containsExactlyElementsOf(twice(eventIds(licenseEvents)));
        assertThat(eventIds(records(Topics.of(Aggregates.SUBSCRIPTION), paid.subscription().toString(), "SubscriptionSuspended")))
                .containsExactlyElementsOf(twice(eventIds(subscriptionEvents)));
        assertThat(eventIds(records(Topics.of(Aggregates.GUILD), paid.guildId(), "BotKicked")))
                .containsExactlyElementsOf(twice(eventIds(guildEvents)));
    }

    private static List<String> eventIds(List<ConsumerRecord<String, byte[]>> records) {
        return records.stream().map(r -> KafkaProbe.header(r, EventHeaders.EVENT_ID)).toList();
    }

    private static List<String> twice(List<String> ids) {
        List<String> both = new ArrayList<>(ids);
        both.addAll(ids);
        return both;
    }
}
