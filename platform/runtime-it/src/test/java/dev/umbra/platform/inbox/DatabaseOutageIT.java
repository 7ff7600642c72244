package dev.umbra.platform.inbox;

import static dev.umbra.platform.inbox.TestEvents.applications;
import static dev.umbra.platform.inbox.TestEvents.claims;
import static dev.umbra.platform.inbox.TestEvents.distinctApplications;
import static dev.umbra.platform.inbox.TestEvents.guild;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.events.licensing.LicenseSuspended;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.TcpProxy;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import dev.umbra.platform.inbox.TestEvents.Handling;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Postgres goes away in the middle of a burst and comes back: every event is applied once, none is
 * dead-lettered, and the service needed no restart. The database is taken away by cutting the relay
 * between the service's pool and Postgres, which refuses connections as a stopped server would.
 */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.platform.inbox.Inbox", message = "waits at")
// the application's polled work queue (WorkQueuePollingIT's) reports the outage too, as every service's queues do
@ExpectedLog(category = "dev.umbra.platform.workqueue.WorkQueues", message = "round failed")
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "inbox_outage"))
class DatabaseOutageIT {

    /** Failed attempts the outage lasts for: about half a minute with backoff capped at 1 s (application.properties). */
    private static final int FAILED_ATTEMPTS_DURING_OUTAGE = 30;

    @InjectDevstack
    Database db;

    @InjectDevstack
    TcpProxy link;

    @Inject
    MeterRegistry registry;

    @Inject
    ProcessedEventTrimmer trimmer;

    @Test
    void aDatabaseOutageInTheMiddleOfABurstCostsNoEventAndNeedsNoRestart() {
        List<UUID> ids = TestEvents.ids(1000);
        // fifty events for a handler of one event, fifty for a handler of runs, and so on
        KafkaProbe.produceAll(IntStream.range(0, ids.size())
                .mapToObj(i -> Handling.values()[(i / 50) % 2].record(guild("00"), ids.get(i))).toList());
        await().atMost(Duration.ofSeconds(60)).until(() -> applications(db, ids) >= 50);

        link.cut();
        double before = failures("transient");
        await().atMost(Duration.ofMinutes(2)).until(() -> failures("transient") - before >= FAILED_ATTEMPTS_DURING_OUTAGE);
        assertThat(applications(db, ids)).isLessThan(ids.size());
        link.restore();

        await().atMost(Duration.ofMinutes(2)).until(() -> applications(db, ids) == ids.size());
        assertThat(distinctApplications(db, ids)).isEqualTo(ids.size());
        assertThat(claims(db, ids)).isEqualTo(ids.size());
        assertThat(failures("deterministic")).isZero();
        assertThat(registry.find("umbra.inbox.events").tag("outcome", "dead_lettered").counters()).isEmpty();
        try (KafkaProbe deadLetters = KafkaProbe.read(Topics.deadLetterOf(TestConsumer.TOPIC))) {
            // the topic holds the other classes' deliberate dead letters: none of these events among them
            Set<String> published = ids.stream().map(UUID::toString).collect(Collectors.toSet());
            assertThat(deadLetters.seenToEnd()).filteredOn(r -> published.contains(KafkaProbe.header(r, EventHeaders.EVENT_ID))).isEmpty();
        }
    }

    @Test
    void readModelsWaitForTheDatabaseAndLearnOnceItIsBackNothingDeadLettered() {
        String guildId = guild("00");
        UUID subscription = UUID.randomUUID();
        UUID license = UUID.randomUUID();
        List<UUID> ids = TestEvents.ids(3);
        link.cut();
        try {
            double before = failures(ReadModelConsumer.NAME, "transient");
            KafkaProbe.produceAll(List.of(
                    ReadModelEvents.onPartition(0, new SubscriptionStarted(subscription, guildId, "PRO", Instant.now()), ids.get(0), 1),
                    ReadModelEvents.onPartition(1, new LicenseGranted(license, guildId, "PREMIUM"), ids.get(1), 1),
                    ReadModelEvents.onPartition(1, new LicenseSuspended(license, "payment_failed"), ids.get(2), 2)));
            await().atMost(Duration.ofMinutes(1)).until(() -> failures(ReadModelConsumer.NAME, "transient") - before >= 5);
            assertThat(ReadModelEvents.claims(db, ids)).isZero();
        } finally {
            link.restore();
        }

        await().atMost(Duration.ofMinutes(1)).until(() -> ReadModelEvents.claims(db, ids) == ids.size());
        assertThat(ReadModelEvents.mappings(db, "subscription", subscription.toString(), guildId)).isEqualTo(1);
        assertThat(ReadModelEvents.mappings(db, "license", license.toString(), guildId)).isEqualTo(1);
        assertThat(ReadModelEvents.licensePlan(db, license)).isEqualTo(guildId + " PREMIUM SUSPENDED");
        assertThat(failures(ReadModelConsumer.NAME, "deterministic")).isZero();
        for (String topic : List.of(Topics.of("license"), Topics.of("subscription"))) {
            try (KafkaProbe deadLetters = KafkaProbe.read(Topics.deadLetterOf(topic))) {
                Set<String> published = ids.stream().map(UUID::toString).collect(Collectors.toSet());
                assertThat(deadLetters.seenToEnd()).filteredOn(r -> published.contains(KafkaProbe.header(r, EventHeaders.EVENT_ID))).isEmpty();
            }
        }
    }

    private double failures(String fault) {
        return failures(TestConsumer.NAME, fault);
    }

    private double failures(String consumer, String fault) {
        return registry.find("umbra.inbox.failures").tag("consumer", consumer).tag("fault", fault).counters()
                .stream().mapToDouble(Counter::count).sum();
    }

    @Test
    void aTrimThatMeetsAnOutageFailsWholeAndTheNextRunTrimsEverything() {
        String consumer = "trim-" + UUID.randomUUID().toString().substring(0, 8);
        for (UUID id : TestEvents.ids(5)) {
            db.count("with claimed as (insert into processed_event (consumer, event_id, event_type, aggregate_type, aggregate_id, processed_at) "
                    + "values (?, ?, 'BotInstalled', 'guild', '1', now() - interval '40 days') returning 1) select count(*) from claimed", consumer, id);
        }

        link.cut();
        try {
            assertThatThrownBy(this::trim).isNotNull();
        } finally {
            link.restore();
        }
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> trim() >= 0);
        assertThat(db.count("select count(*) from processed_event where consumer = ?", consumer)).isZero();
    }

    @Test
    void aTrimOfFinishedWorkThatMeetsAnOutageFailsWholeAndTheNextRunTrimsEverything() {
        String queue = "trim-" + UUID.randomUUID().toString().substring(0, 8);
        for (int i = 0; i < 5; i++) {
            db.execute("insert into work_item (queue, item_key, payload, status, due_at, ready_at, created_at, finished_at) "
                    + "values (?, ?, '{}', 'done', now() - interval '41 days', now() - interval '41 days', now() - interval '41 days', "
                    + "now() - interval '40 days')", queue, "item-" + i);
        }

        link.cut();
        try {
            assertThatThrownBy(this::trimFinishedWork).isNotNull();
        } finally {
            link.restore();
        }
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> trimFinishedWork() >= 0);
        assertThat(db.count("select count(*) from work_item where queue = ?", queue)).isZero();
    }

    private long trim() throws Exception {
        return awaitTrim(() -> trimmer.trim());
    }

    private long trimFinishedWork() throws Exception {
        return awaitTrim(() -> trimmer.trimFinishedWork());
    }

    private static long awaitTrim(Supplier<Uni<Long>> trim) throws Exception {
        try {
            return VertxContextSupport.subscribeAndAwait(trim);
        } catch (Exception e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
