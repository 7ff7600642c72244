package dev.umbra.platform.inbox;

import static dev.umbra.platform.inbox.TestEvents.applications;
import static dev.umbra.platform.inbox.TestEvents.claims;
import static dev.umbra.platform.inbox.TestEvents.distinctApplications;
import static dev.umbra.platform.inbox.TestEvents.guild;
import static dev.umbra.platform.inbox.TestEvents.guildOnPartition;
import static dev.umbra.platform.inbox.TestEvents.installed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.licensing.LicenseDowngraded;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.events.licensing.LicenseSuspended;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.LogGuard;
import dev.umbra.testing.Metrics;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.smallrye.reactive.messaging.kafka.KafkaClientService;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import dev.umbra.platform.inbox.TestEvents.Handling;
import dev.umbra.devstack.Devstack;
import dev.umbra.testing.OutboxRecords;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The inbox as a service uses it, through {@link TestConsumer}, against devstack. */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.platform.inbox.Inbox", message = "failed to apply|splits its batch|waits at|batch handler is wrong")
@ExpectedLog(category = "dev.umbra.platform.inbox.DeadLetters", message = "dead-lettering")
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "inbox_test"))
class InboxIT {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @InjectDevstack
    Database db;

    @Inject
    ProcessedEventTrimmer trimmer;

    @Inject
    TestConsumer consumer;

    @Inject
    KafkaClientService kafka;

    @ParameterizedTest
    @EnumSource(Handling.class)
    void redeliveredEventsAreAppliedOnceWhilePartitionsAreConsumedConcurrently(Handling handling) {
        consumer.longestRunSinceAsked();
        List<UUID> ids = TestEvents.ids(150);
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        List<String> guilds = new ArrayList<>();
        for (UUID id : ids) {
            String guildId = guild("00");
            guilds.add(guildId);
            records.add(handling.record(guildId, id));
            records.add(handling.record(guildId, id));
        }
        KafkaProbe.produceAll(records);
        // and once more, later, as a replay would
        KafkaProbe.produceAll(ids.stream().map(id -> handling.record(guilds.get(ids.indexOf(id)), id)).toList());
        List<UUID> markers = markEveryPartition();

        await().atMost(PATIENCE).until(() -> applications(db, markers) == markers.size());
        assertThat(applications(db, ids)).isEqualTo(ids.size());
        assertThat(distinctApplications(db, ids)).isEqualTo(ids.size());
        assertThat(claims(db, ids)).isEqualTo(ids.size());
        if (handling == Handling.TOGETHER) {
            assertThat(consumer.longestRunSinceAsked()).as("events applied in one call").isGreaterThan(1);
        }
    }

    /**
     * A run that a {@link BatchEventHandler} fails is applied again one event at a time, which finds the culprit;
     * the run's failure counts as one of the culprit's attempts.
     */
    @ParameterizedTest
    @EnumSource(Handling.class)
    void aFailingRecordDoesNotPoisonItsBatchOnlyTheCulpritsAreDeadLettered(Handling handling) {
        int partition = 1;
        List<UUID> good = new ArrayList<>();
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        UUID failing = UUID.randomUUID();
        UUID rejected = UUID.randomUUID();
        UUID undecodable = UUID.randomUUID();
        String failingGuild = guildOnPartition(partition, "98");
        for (int i = 0; i < 300; i++) {
            UUID id = UUID.randomUUID();
            good.add(id);
            records.add(handling.record(guildOnPartition(partition, "00"), id));
            if (i == 100) {
                records.add(handling.record(failingGuild, failing));
            } else if (i == 150) {
                records.add(handling.record(guildOnPartition(partition, "99"), rejected));
            } else if (i == 200) {
                records.add(TestEvents.undecodable(guildOnPartition(partition, "00"), undecodable));
            }
        }
        KafkaProbe.produceAll(records);

        await().atMost(PATIENCE).until(() -> applications(db, good) == good.size());
        assertThat(distinctApplications(db, good)).isEqualTo(good.size());
        Set<String> culprits = Set.of(failing.toString(), rejected.toString(), undecodable.toString());
        Set<String> mine = good.stream().map(UUID::toString).collect(Collectors.toSet());
        try (KafkaProbe deadLetters = KafkaProbe.read(Topics.deadLetterOf(TestConsumer.TOPIC))) {
            await().atMost(PATIENCE).until(() -> deadLetteredAmong(deadLetters.seenToEnd(), culprits).size() == culprits.size());
            List<ConsumerRecord<String, byte[]>> seen = deadLetters.seen();
            assertThat(deadLetteredAmong(seen, mine)).isEmpty();
            ConsumerRecord<String, byte[]> failed = deadLetteredAmong(seen, Set.of(failing.toString())).get(0);
            assertThat(KafkaProbe.header(failed, DeadLetters.ERROR_CLASS)).isEqualTo(IllegalStateException.class.getName());
            assertThat(KafkaProbe.header(failed, DeadLetters.CONSUMER)).isEqualTo(TestConsumer.NAME);
        }
        assertThat(consumer.attemptsFor(failingGuild)).isEqualTo(3);
        assertThat(claims(db, List.of(failing, rejected, undecodable))).isZero();
        // the records before the culprit were applied twice (the batch's try rolled back), reported once
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(good)
                .allSatisfy(id -> assertThat(consumer.reportsOf(id)).as("reports of %s", id).isEqualTo(1)));
        assertThat(consumer.reportsOf(failing)).isZero();
        assertThat(consumer.reportsOf(rejected)).isZero();
    }

    /**
     * Failures that look like passing ones but come back every time: a unique key the handler itself breaks
     * (taken for a lost race at first) and JSON that does not parse (an IOException to Java). They are the
     * records' own: dead-lettered, while the records around them are applied, instead of holding the partition.
     */
    @Test
    void aUniqueKeyTheHandlerBreaksEveryTimeAndJsonThatDoesNotParseAreDeadLetteredNotRetriedForEver() {
        int partition = 2;
        List<UUID> good = TestEvents.ids(40);
        UUID conflicting = UUID.randomUUID();
        UUID unparsable = UUID.randomUUID();
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < good.size(); i++) {
            records.add(Handling.ONE_AT_A_TIME.record(guildOnPartition(partition, "00"), good.get(i)));
            if (i == 10) {
                records.add(Handling.ONE_AT_A_TIME.record(guildOnPartition(partition, "97"), conflicting));
            } else if (i == 20) {
                records.add(Handling.ONE_AT_A_TIME.record(guildOnPartition(partition, "94"), unparsable));
            }
        }
        KafkaProbe.produceAll(records);

        await().atMost(PATIENCE).until(() -> applications(db, good) == good.size());
        assertThat(distinctApplications(db, good)).isEqualTo(good.size());
        Set<String> culprits = Set.of(conflicting.toString(), unparsable.toString());
        try (KafkaProbe deadLetters = KafkaProbe.read(Topics.deadLetterOf(TestConsumer.TOPIC))) {
            await().atMost(PATIENCE).until(() -> deadLetteredAmong(deadLetters.seenToEnd(), culprits).size() == culprits.size());
        }
        assertThat(claims(db, List.of(conflicting, unparsable))).isZero();
    }

    /**
     * A record that failed once by its own fault and then loses races (a unique key another transaction wrote first):
     * the races pass once their winners have committed and count as none of its attempts, so it is applied, not
     * dead-lettered after the attempts its first failure started.
     */
    @Test
    void aRecordThatFailedOnceAndThenLosesRacesIsAppliedNotDeadLettered() {
        int partition = 0;
        List<UUID> good = TestEvents.ids(20);
        UUID unlucky = UUID.randomUUID();
        String unluckyGuild = guildOnPartition(partition, "93");
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < good.size(); i++) {
            records.add(Handling.ONE_AT_A_TIME.record(guildOnPartition(partition, "00"), good.get(i)));
            if (i == 5) {
                records.add(Handling.ONE_AT_A_TIME.record(unluckyGuild, unlucky));
            }
        }
        KafkaProbe.produceAll(records);

        await().atMost(PATIENCE).until(() -> applications(db, good) == good.size());
        assertThat(applications(db, List.of(unlucky))).as("applied once its races passed").isEqualTo(1);
        assertThat(claims(db, List.of(unlucky))).isEqualTo(1);
        assertThat(consumer.attemptsFor(unluckyGuild)).isEqualTo(5);
        assertThat(consumer.reportsOf(unlucky)).as("reported by the one try of five that committed").isEqualTo(1);
    }

    /**
     * A record that the dead letter's headers make larger than Kafka takes (here: its dead-letter topic takes
     * 64 KiB) goes to the dead-letter topic without its value, marked so, instead of being sent again for ever
     * while the records behind it wait.
     */
    @Test
    void aRecordTooLargeForItsDeadLetterGoesWithoutItsValueInsteadOfHoldingItsPartition() throws Exception {
        String deadLetterTopic = Topics.deadLetterOf(TestConsumer.TOPIC);
        int partition = 1;
        UUID large = UUID.randomUUID();
        List<UUID> behind = TestEvents.ids(5);
        byte[] notJson = new byte[65_400];
        Arrays.fill(notJson, (byte) 'x');
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        records.add(KafkaProbe.record(TestConsumer.TOPIC, guildOnPartition(partition, "93"), notJson,
                OutboxRecords.headers("BotInstalled", "guild", large, Instant.now())));
        behind.forEach(id -> records.add(Handling.ONE_AT_A_TIME.record(guildOnPartition(partition, "00"), id)));
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, Devstack.shared().kafka().bootstrapServers()))) {
            topicSetting(admin, deadLetterTopic, new AlterConfigOp(new ConfigEntry("max.message.bytes", "65536"), AlterConfigOp.OpType.SET));
            try (KafkaProbe deadLetters = KafkaProbe.read(deadLetterTopic)) {
                KafkaProbe.produceAll(records);

                await().atMost(Duration.ofSeconds(30)).until(() -> applications(db, behind) == behind.size());
                ConsumerRecord<String, byte[]> letter = deadLetters.awaitRecord(
                        r -> large.toString().equals(KafkaProbe.header(r, EventHeaders.EVENT_ID)), Duration.ofSeconds(10));
                assertThat(letter.value()).isNull();
                assertThat(KafkaProbe.header(letter, DeadLetters.VALUE_OMITTED)).contains("source offset");
                assertThat(KafkaProbe.header(letter, DeadLetters.SOURCE_OFFSET)).isNotBlank();
            } finally {
                topicSetting(admin, deadLetterTopic, new AlterConfigOp(new ConfigEntry("max.message.bytes", ""), AlterConfigOp.OpType.DELETE));
            }
        }
    }

    private static void topicSetting(Admin admin, String topic, AlterConfigOp change) throws Exception {
        if (!admin.listTopics().names().get().contains(topic)) {
            admin.createTopics(List.of(new NewTopic(topic, Optional.empty(), Optional.empty()))).all().get();
        }
        admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), List.of(change))).all().get();
    }

    /**
     * A batch handler must do what its records do one by one. One that fails a run whose records each apply on
     * their own loses nothing (the records are applied one at a time, each once, none dead-lettered) and is
     * reported as the bug it is.
     */
    @Test
    void aRunThatFailsWhileEachOfItsRecordsAppliesIsAppliedOneByOneAndReported() throws Exception {
        int partition = 0;
        List<UUID> ids = TestEvents.ids(21);
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            records.add(Handling.TOGETHER.record(guildOnPartition(partition, i == 10 ? "95" : "00"), ids.get(i)));
        }
        long warnedBefore = warnings("batch handler is wrong");
        KafkaProbe.produceAll(records);

        await().atMost(PATIENCE).until(() -> applications(db, ids) == ids.size());
        assertThat(distinctApplications(db, ids)).isEqualTo(ids.size());
        assertThat(claims(db, ids)).isEqualTo(ids.size());
        await().atMost(PATIENCE).until(() -> warnings("batch handler is wrong") > warnedBefore);
    }

    /**
     * A batch whose every attempt runs out of time as a whole (a statement cut at its timeout) is applied in halves,
     * and halves of halves, each record once and in order, rather than sent again unchanged for as long as the
     * database stays slow.
     */
    @Test
    void aBatchThatRunsOutOfTimeEveryTimeIsAppliedInHalves() {
        int partition = 1;
        List<UUID> ids = TestEvents.ids(8);
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        for (UUID id : ids) {
            records.add(installed(guildOnPartition(partition, "92"), id));
        }
        KafkaProbe.produceAll(records);

        await().atMost(PATIENCE).until(() -> applications(db, ids) == ids.size());
        assertThat(distinctApplications(db, ids)).isEqualTo(ids.size());
        assertThat(claims(db, ids)).isEqualTo(ids.size());
        try (KafkaProbe deadLetters = KafkaProbe.read(Topics.deadLetterOf(TestConsumer.TOPIC))) {
            assertThat(deadLetteredAmong(deadLetters.seenToEnd(), Set.copyOf(ids.stream().map(UUID::toString).toList())))
                    .isEmpty();
        }
    }

    private static long warnings(String text) throws IOException {
        return Files.readAllLines(LogGuard.TEST_LOG).stream()
                .filter(line -> line.contains("WARN") && line.contains(text)).count();
    }

    @Test
    void aHandlerThatHangsTimesOutAndIsRetriedWhileItsPartitionWaitsAndTheOthersCarryOn() {
        awaitOnePartitionPerConsumer();
        int stuckPartition = 2;
        String hanging = guildOnPartition(stuckPartition, "96");
        UUID hangingId = UUID.randomUUID();
        UUID behindId = UUID.randomUUID();
        List<UUID> elsewhere = TestEvents.ids(60);
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        records.add(installed(hanging, hangingId));
        records.add(installed(guildOnPartition(stuckPartition, "00"), behindId));
        for (int i = 0; i < elsewhere.size(); i++) {
            records.add(installed(guildOnPartition(i % 2, "00"), elsewhere.get(i)));
        }
        KafkaProbe.produceAll(records);

        await().atMost(PATIENCE).until(() -> consumer.attemptsFor(hanging) >= 2
                && applications(db, elsewhere) == elsewhere.size());
        assertThat(applications(db, List.of(hangingId, behindId))).isZero();

        consumer.release();
        await().atMost(PATIENCE).until(() -> applications(db, List.of(hangingId, behindId)) == 2);
        assertThat(distinctApplications(db, List.of(hangingId, behindId))).isEqualTo(2);
        try (KafkaProbe deadLetters = KafkaProbe.read(Topics.deadLetterOf(TestConsumer.TOPIC))) {
            assertThat(deadLetteredAmong(deadLetters.seenToEnd(), Set.of(hangingId.toString(), behindId.toString()))).isEmpty();
        }
        // the tries that timed out rolled back and reported nothing, not even once released
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(consumer.reportsOf(hangingId)).isEqualTo(1));
        assertThat(consumer.reportsOf(behindId)).isEqualTo(1);
    }

    @Test
    void theReadModelsLearnTheSameFromEventsOfOneAggregateAppliedAtOnce() {
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        List<UUID> eventIds = new ArrayList<>();
        List<UUID> subscriptions = new ArrayList<>();
        List<UUID> licenses = new ArrayList<>();
        List<String> guilds = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            String guildId = guild("00");
            UUID subscription = UUID.randomUUID();
            UUID license = UUID.randomUUID();
            guilds.add(guildId);
            subscriptions.add(subscription);
            licenses.add(license);
            // the same mapping taught by two events on two partitions; a license's three events on three
            SubscriptionStarted started = new SubscriptionStarted(subscription, guildId, "PRO", Instant.now());
            records.add(ReadModelEvents.onPartition(0, started, id(eventIds), 1));
            records.add(ReadModelEvents.onPartition(1, started, id(eventIds), 1));
            records.add(ReadModelEvents.onPartition(0, new LicenseGranted(license, guildId, "PREMIUM"), id(eventIds), 1));
            records.add(ReadModelEvents.onPartition(1, new LicenseDowngraded(license, "PREMIUM", "PRO"), id(eventIds), 2));
            records.add(ReadModelEvents.onPartition(2, new LicenseSuspended(license, "payment_failed"), id(eventIds), 3));
        }
        KafkaProbe.produceAll(records);

        await().atMost(PATIENCE).until(() -> ReadModelEvents.claims(db, eventIds) == eventIds.size());
        for (int i = 0; i < guilds.size(); i++) {
            assertThat(ReadModelEvents.mappings(db, "subscription", subscriptions.get(i).toString(), guilds.get(i))).isEqualTo(1);
            assertThat(ReadModelEvents.mappings(db, "license", licenses.get(i).toString(), guilds.get(i))).isEqualTo(1);
            assertThat(ReadModelEvents.licensePlan(db, licenses.get(i))).isEqualTo(guilds.get(i) + " PRO SUSPENDED");
        }
        for (String topic : List.of(Topics.of("license"), Topics.of("subscription"))) {
            try (KafkaProbe deadLetters = KafkaProbe.read(Topics.deadLetterOf(topic))) {
                assertThat(deadLetteredAmong(deadLetters.seenToEnd(), eventIds.stream().map(UUID::toString).collect(Collectors.toSet())))
                        .isEmpty();
            }
        }
    }

    @Test
    void aChannelNamedAfterAnAggregateReadsItsTopicInTheGroupOfThisServiceAndTopic() {
        for (String aggregate : List.of("license", "subscription")) {
            String channel = EventChannels.of(aggregate);
            List<String> copies = kafka.getConsumerChannels().stream().filter(c -> c.equals(channel) || c.startsWith(channel + "$")).toList();
            assertThat(copies).as("one consumer per channel: the rule's concurrency").hasSize(1);
            for (String copy : copies) {
                var reader = kafka.<String, byte[]>getConsumers(copy).get(0);
                assertThat(reader.configuration().get("group.id")).isEqualTo("inbox-test." + Topics.of(aggregate));
                Function<Consumer<String, byte[]>, Set<String>> subscription = Consumer::subscription;
                assertThat(reader.runOnPollingThread(subscription).await().atMost(Duration.ofSeconds(5)))
                        .containsExactly(Topics.of(aggregate));
            }
        }
    }

    /**
     * ReadModelConsumer reads both channels with one method, and both keep the rule's concurrency of 1: each still has
     * a pipeline of its own, so a subscription event that cannot be claimed (another transaction holds its claim)
     * holds up its channel only, never the license channel; once the claim is let go, it is applied.
     */
    @Test
    void aWaitingChannelOfAMethodThatReadsTwoHoldsUpOnlyItself() throws Exception {
        UUID stuck = UUID.randomUUID();
        UUID subscription = UUID.randomUUID();
        String guildId = guild("00");
        double failuresBefore = waitsOfSubscriptionStarted();
        try (AutoCloseable claimHeldElsewhere = db.holdingUncommitted("insert into processed_event (consumer, event_id, event_type, aggregate_type, "
                + "aggregate_id) values (?, ?::uuid, 'SubscriptionStarted', 'subscription', 'held')", ReadModelConsumer.NAME, stuck.toString())) {
            KafkaProbe.produceAll(List.of(ReadModelEvents.onPartition(0,
                    new SubscriptionStarted(subscription, guildId, "PRO", Instant.now()), stuck, 1)));
            // its claim waits for the other transaction until the statement timeout cancels it (transient: tried again)
            await().atMost(PATIENCE).until(() -> waitsOfSubscriptionStarted() > failuresBefore);

            List<UUID> licenseEvents = new ArrayList<>();
            List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
            for (int partition = 0; partition < TestEvents.PARTITIONS; partition++) {
                records.add(ReadModelEvents.onPartition(partition, new LicenseGranted(UUID.randomUUID(), guild("00"), "PRO"), id(licenseEvents), 1));
            }
            KafkaProbe.produceAll(records);
            await().atMost(Duration.ofSeconds(30)).until(() -> ReadModelEvents.claims(db, licenseEvents) == licenseEvents.size());
        }
        await().atMost(PATIENCE).until(() -> ReadModelEvents.mappings(db, "subscription", subscription.toString(), guildId) == 1);
    }

    private static double waitsOfSubscriptionStarted() {
        return orZero(Metrics.scrape().sum("umbra_inbox_failures_total", "consumer=\"" + ReadModelConsumer.NAME + "\"",
                "event_type=\"SubscriptionStarted\"", "fault=\"transient\""));
    }

    private static UUID id(List<UUID> eventIds) {
        UUID id = UUID.randomUUID();
        eventIds.add(id);
        return id;
    }

    @Test
    void metricsCountWhatTheInboxDidAndMeasureTheLagAndTheSlotsRetainedWal() {
        Metrics before = Metrics.scrape();
        String good = guildOnPartition(0, "00");
        UUID goodId = UUID.randomUUID();
        UUID rejectedId = UUID.randomUUID();
        KafkaProbe.produceAll(List.of(installed(good, goodId), installed(good, goodId),
                installed(guildOnPartition(0, "99"), rejectedId)));
        List<UUID> markers = markEveryPartition();
        await().atMost(PATIENCE).until(() -> applications(db, markers) == markers.size());

        await().atMost(PATIENCE).untilAsserted(() -> {
            Metrics after = Metrics.scrape();
            String consumer = "consumer=\"" + TestConsumer.NAME + "\"";
            assertThat(after.sum("umbra_inbox_events_total", consumer, "outcome=\"processed\""))
                    .isGreaterThanOrEqualTo(orZero(before.sum("umbra_inbox_events_total", consumer, "outcome=\"processed\"")) + 4);
            assertThat(after.sum("umbra_inbox_events_total", consumer, "outcome=\"duplicate\""))
                    .isGreaterThanOrEqualTo(orZero(before.sum("umbra_inbox_events_total", consumer, "outcome=\"duplicate\"")) + 1);
            assertThat(after.sum("umbra_inbox_events_total", consumer, "outcome=\"dead_lettered\""))
                    .isGreaterThanOrEqualTo(orZero(before.sum("umbra_inbox_events_total", consumer, "outcome=\"dead_lettered\"")) + 1);
            assertThat(after.sum("umbra_inbox_failures_total", consumer, "fault=\"deterministic\""))
                    .isGreaterThanOrEqualTo(orZero(before.sum("umbra_inbox_failures_total", consumer, "fault=\"deterministic\"")) + 1);
            assertThat(after.sum("umbra_inbox_lag_seconds_count", consumer))
                    .isGreaterThanOrEqualTo(orZero(before.sum("umbra_inbox_lag_seconds_count", consumer)) + 4);
            assertThat(after.sum("umbra_inbox_lag_seconds_bucket", consumer, "le=\"+Inf\"")).isPositive();
            // nothing streams this database's slot in these tests: it keeps all the WAL written since the migration
            assertThat(after.sum("umbra_replication_slot_retained_wal_bytes", "slot=\"inbox_test_outbox\"")).isPositive();
        });
    }

    private static double orZero(double value) {
        return Double.isNaN(value) ? 0 : value;
    }

    /** The group has settled: each of the channel's Kafka consumers reads one partition. */
    private void awaitOnePartitionPerConsumer() {
        await().atMost(PATIENCE).until(() -> {
            List<Set<TopicPartition>> assignments = new ArrayList<>();
            for (String channel : kafka.getConsumerChannels()) {
                if (channel.startsWith("test-events")) {
                    for (var reader : kafka.<String, byte[]>getConsumers(channel)) {
                        assignments.add(reader.getAssignments().await().atMost(Duration.ofSeconds(5)));
                    }
                }
            }
            return assignments.size() == TestEvents.PARTITIONS && assignments.stream().allMatch(a -> a.size() == 1);
        });
    }

    /** One well-behaved event per partition, produced last: once all are applied, everything before them was consumed. */
    private static List<UUID> markEveryPartition() {
        List<UUID> markers = TestEvents.ids(TestEvents.PARTITIONS);
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        for (int partition = 0; partition < TestEvents.PARTITIONS; partition++) {
            records.add(installed(guildOnPartition(partition, "00"), markers.get(partition)));
        }
        KafkaProbe.produceAll(records);
        return markers;
    }

    private static List<ConsumerRecord<String, byte[]>> deadLetteredAmong(List<ConsumerRecord<String, byte[]>> records,
            Set<String> eventIds) {
        return records.stream().filter(r -> eventIds.contains(KafkaProbe.header(r, EventHeaders.EVENT_ID))).toList();
    }

    @Test
    void claimsOlderThanTheDedupeHorizonAreTrimmedInBatchesByConcurrentRunsAndRecentOnesKept() throws Throwable {
        String consumer = "trim-" + UUID.randomUUID().toString().substring(0, 8);
        List<UUID> old = TestEvents.ids(7);
        List<UUID> recent = TestEvents.ids(3);
        for (UUID id : old) {
            claim(consumer, id, "now() - interval '31 days'");
        }
        for (UUID id : recent) {
            claim(consumer, id, "now() - interval '29 days'");
        }

        // two replicas' runs at once (the test profile deletes 2 a statement): each old claim goes once, no run fails
        List<Long> trimmed = VertxContextSupport.subscribeAndAwait(() -> io.smallrye.mutiny.Uni.join()
                .all(trimmer.trim(), trimmer.trim()).andFailFast());
        assertThat(db.count("select count(*) from processed_event where consumer = ?", consumer)).isEqualTo(recent.size());
        assertThat(trimmed.get(0) + trimmed.get(1)).isGreaterThanOrEqualTo(old.size());
        for (UUID id : recent) {
            assertThat(db.count("select count(*) from processed_event where consumer = ? and event_id = ?", consumer, id)).isOne();
        }
    }

    private void claim(String consumer, UUID id, String processedAt) {
        db.count("with claimed as (insert into processed_event (consumer, event_id, event_type, aggregate_type, aggregate_id, processed_at) "
                + "values (?, ?, 'BotInstalled', 'guild', '1', " + processedAt + ") returning 1) select count(*) from claimed", consumer, id);
    }
}
