package dev.umbra.licensing.license;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.InboxProbe;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Metrics;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.TcpProxy;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Installs come in bursts, and the inbox hands licensing runs of consecutive BotInstalled at once: a run's
 * licenses are read with one query and its grants written with one statement. The outcome is the one of
 * applying the events one by one, also for guilds installed twice within a run, and through a database
 * outage in the middle of the burst.
 */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.platform.inbox.Inbox", message = "waits at")
@ExpectedLog(category = "dev.umbra.platform.workqueue.WorkQueues", message = "round failed")
@ExpectedLog(category = "dev.umbra.platform.storage.DatabaseGuards", message = "circuit opened")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "licensing"), @ResourceArg(name = "outbox", value = "licensing")})
class InstallBurstsIT {

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(90);
    @InjectDevstack
    Database db;

    @InjectDevstack
    InboxProbe inbox;
    private static final Instant T = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    @InjectDevstack
    TcpProxy link;

    @AfterEach
    void restore() {
        link.restore();
    }

    @Test
    void aBurstIsAppliedAsItsEventsWouldBeOneByOneAlsoForGuildsInstalledTwiceAndRecordsDeliveredTwice() {
        List<String> guilds = guilds(150);
        Map<String, String> owners = new HashMap<>();
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        List<UUID> events = new ArrayList<>();
        for (String guild : guilds) {
            String installer = Snowflakes.random();
            owners.put(guild, installer);
            records.add(install(guild, installer, T, events));
        }
        for (int i = 0; i < 20; i++) {
            // an earlier install of the guild that arrives after the later one: its installer is the owner
            String earlier = Snowflakes.random();
            owners.put(guilds.get(i), earlier);
            records.add(install(guilds.get(i), earlier, T.minusSeconds(60), events));
            // a reinstall by someone else: the first installer stays the owner
            records.add(install(guilds.get(20 + i), Snowflakes.random(), T.plusSeconds(60), events));
            // the same record twice, as Kafka Connect may send it after a crash
            records.add(records.get(40 + i));
        }

        KafkaProbe.produceAll(records);

        await().atMost(WAIT).until(() -> inbox.processed("licensing", events) == events.size());
        assertOneLicenseAndOneGrantEach(guilds);
        for (String guild : guilds) {
            assertThat(db.text("select coalesce(changed_owner_id, first_installer_id) from guild_owner where guild_id = ?", guild))
                    .as("owner of %s", guild).isEqualTo(owners.get(guild));
        }
    }

    @Test
    void installsThatArriveDuringADatabaseOutageAreAppliedOnceWhenItEndsEachGuildGrantedOnce() {
        List<String> before = guilds(200);
        List<String> during = guilds(200);
        List<UUID> applied = new ArrayList<>();
        List<UUID> waiting = new ArrayList<>();
        KafkaProbe.produceAll(before.stream().map(guild -> install(guild, Snowflakes.random(), T, applied)).toList());
        await().atMost(WAIT).until(() -> inbox.processed("licensing", applied) == applied.size());

        link.cut();
        double faultsBefore = transientFailures();
        KafkaProbe.produceAll(during.stream().map(guild -> install(guild, Snowflakes.random(), T, waiting)).toList());
        await().atMost(WAIT).until(() -> transientFailures() - faultsBefore >= 3);
        link.restore();

        await().atMost(WAIT).until(() -> inbox.processed("licensing", waiting) == waiting.size());
        List<String> all = new ArrayList<>(before);
        all.addAll(during);
        assertOneLicenseAndOneGrantEach(all);
        try (KafkaProbe deadLetters = KafkaProbe.read(Topics.deadLetterOf(Topics.of(Aggregates.GUILD)))) {
            Set<String> ids = waiting.stream().map(UUID::toString).collect(Collectors.toSet());
            assertThat(deadLetters.seenToEnd()).filteredOn(r -> ids.contains(KafkaProbe.header(r, EventHeaders.EVENT_ID))).isEmpty();
        }
    }

    private void assertOneLicenseAndOneGrantEach(List<String> guilds) {
        Set<String> ours = Set.copyOf(guilds);
        assertThat(db.count("select count(*) from license where guild_id = any(string_to_array(?, ','))", String.join(",", guilds)))
                .isEqualTo(guilds.size());
        try (KafkaProbe licenses = KafkaProbe.read(Topics.of(Aggregates.LICENSE))) {
            await().atMost(WAIT).until(() -> grantsByGuild(licenses.seen(), ours).size() == guilds.size());
            // and a moment more, so that a second grant on its way would be seen
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                    .until(() -> grantsByGuild(licenses.seen(), ours).values().stream().allMatch(ids -> ids.size() == 1));
        }
    }

    private static Map<String, Set<String>> grantsByGuild(List<ConsumerRecord<String, byte[]>> records, Set<String> guilds) {
        return records.stream()
                .filter(r -> "LicenseGranted".equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)))
                .filter(r -> guilds.contains(guildOf(r)))
                .collect(Collectors.groupingBy(InstallBurstsIT::guildOf,
                        Collectors.mapping(r -> KafkaProbe.header(r, EventHeaders.EVENT_ID), Collectors.toSet())));
    }

    private static String guildOf(ConsumerRecord<String, byte[]> record) {
        try {
            return JSON.readTree(record.value()).path("guild_id").asText();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static ProducerRecord<String, byte[]> install(String guild, String installer, Instant at, List<UUID> events) {
        UUID id = UUID.randomUUID();
        events.add(id);
        return OutboxRecords.record(new BotInstalled(guild, installer), id, at);
    }

    private static List<String> guilds(int count) {
        return java.util.stream.IntStream.range(0, count).mapToObj(i -> Snowflakes.random()).toList();
    }

    private static double transientFailures() {
        double sum = Metrics.scrape().sum("umbra_inbox_failures_total", "consumer=\"licensing\"", "fault=\"transient\"");
        return Double.isNaN(sum) ? 0 : sum;
    }
}
