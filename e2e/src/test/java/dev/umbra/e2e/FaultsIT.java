package dev.umbra.e2e;

import static dev.umbra.e2e.SystemClient.TIMEOUT;
import static dev.umbra.e2e.SystemClient.pause;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.KafkaBroker;
import dev.umbra.devstack.KafkaConnectWorker;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.devstack.PostgresServer;
import dev.umbra.e2e.SystemClient.Answer;
import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.testing.Database;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.LogLines;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A fault in the middle of a workload, then recovery: clients install the bot in new guilds and every
 * third of them subscribes to PRO (a billing key, then the first charge at the gateway). A consumer service killed: the records it
 * had applied but not yet acknowledged to Kafka come again and are recognised. Kafka Connect killed: the
 * outbox rows it had read after its last flushed offset are sent to Kafka again. The broker stopped for
 * 15 s: events wait in the replication slot and consumers wait for the broker. PostgreSQL restarted: every
 * service answers 503 or waits while it is away, Debezium reconnects to its slots, and clients that try
 * again get their installs and subscriptions. Each time none is lost, none is applied twice, and no event
 * is published twice; then {@link SystemInvariants} checks the whole system.
 */
class FaultsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CLIENTS = 4;
    private static final int INSTALLS_BEFORE = 60;
    private static final int INSTALLS_AFTER = 60;
    private static final int KICKED = 10;
    /** Every this many guilds of the workload, one subscribes to PRO. */
    private static final int SUBSCRIBING_EVERY = 3;
    /** How long a client keeps trying a call that answers 502/503 (the database away for 10 s, then circuits half-open). */
    private static final Duration PATIENCE = Duration.ofSeconds(90);

    private final LocalSystem system = RunningSystem.get();
    private final SystemClient umbra = new SystemClient();
    /** The guilds of this test's workload that subscribed, and how billing answered their subscription. */
    private final Map<String, Integer> subscribed = new ConcurrentHashMap<>();
    /** How many of the workload's calls met a fault (a 502/503) and were made again. */
    private final java.util.concurrent.atomic.AtomicInteger calledAgain = new java.util.concurrent.atomic.AtomicInteger();
    /** How many of the workload's installs were answered. */
    private final java.util.concurrent.atomic.AtomicInteger installsAnswered = new java.util.concurrent.atomic.AtomicInteger();

    /** The broker stopped on purpose: every Kafka client of every service reports it lost the broker until it is back. */
    private static final LogLines.Expectation BROKER_AWAY = new LogLines.Expectation("org.apache.kafka.clients.NetworkClient", "WARN",
            "Connection to node .* could not be established|Bootstrap broker .* disconnected");
    /** A commit sent while the broker is away or takes its group coordinators back fails; the next commit carries the offsets. */
    private static final LogLines.Expectation COMMIT_FAILED = new LogLines.Expectation(
            "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", "WARN", "Offset commit failed on partition");
    private static final LogLines.Expectation COMMIT_RETRIED = new LogLines.Expectation(
            "io.smallrye.reactive.messaging.kafka", "WARN", "SRMSG18252.*it will be re-attempted");

    /**
     * A broker away for longer than a consumer's session (10 s on devstack) has forgotten the group's members when
     * it returns: a commit sent before the consumer joins again is refused, which Kafka's client logs as an ERROR;
     * the consumer joins again and the inbox skips what it reads a second time.
     */
    private static final LogLines.Expectation MEMBER_FORGOTTEN = new LogLines.Expectation(
            "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", "ERROR",
            "Offset commit failed on partition .*: The coordinator is not aware of this member");

    /**
     * The same, seen by a consumer whose group the broker dissolved while away: its partitions are lost, and
     * SmallRye's rebalance listener still tries to commit them, which fails and makes one poll fail; the consumer
     * joins again. Declared by the scenarios that take the broker or the database away, not by the class.
     */
    private static final LogLines.Expectation[] PARTITIONS_LOST = {
        new LogLines.Expectation("io.smallrye.reactive.messaging.kafka", "ERROR",
                "SRMSG18222: Unable to execute consumer revoked re-balance listener .*CommitFailedException"),
        new LogLines.Expectation("org.apache.kafka.clients.consumer.internals.ConsumerRebalanceListenerInvoker", "ERROR",
                "failed on invocation of onPartitionsLost .*CommitFailedException"),
        new LogLines.Expectation("io.smallrye.reactive.messaging.kafka", "WARN",
                "SRMSG18285: Failed to poll consumer client .* it will be re-attempted: .*User rebalance callback throws an error")};

    private static final LogLines.Expectation[] KAFKA_AWAY = {BROKER_AWAY, COMMIT_FAILED, COMMIT_RETRIED, MEMBER_FORGOTTEN};
    /** PostgreSQL stopped on purpose: what each service reports while it is away (and nothing else). */
    private static final LogLines.Expectation[] DATABASE_AWAY = {
        new LogLines.Expectation("dev.umbra.platform.storage.DatabaseGuards", "WARN", "circuit opened"),
        new LogLines.Expectation("dev.umbra.platform.web.ProblemMappers", "WARN", "database unavailable"),
        new LogLines.Expectation("dev.umbra.platform.inbox.Inbox", "WARN", "waits at"),
        new LogLines.Expectation("dev.umbra.platform.workqueue.WorkQueues", "WARN", "round failed"),
        // the server's own account of its restart: the sessions it ended, the connections it refused meanwhile
        new LogLines.Expectation(LogLines.POSTGRESQL, "FATAL",
                "^terminating connection due to administrator command|^the database system is shutting down")};

    @AfterAll
    static void logsAreClean() {
        RunningSystem.assertCleanLogs(KAFKA_AWAY);
    }

    @Test
    void licensingKilledMidBurstGrantsEachGuildExactlyOneLicense() throws Exception {
        List<String> before = guilds(INSTALLS_BEFORE);
        List<String> after = guilds(INSTALLS_AFTER);
        SystemInvariants.Mark mark = SystemInvariants.mark();

        workload(before, false);
        system.crash("licensing");
        // the workload goes on while the consumer is down: guild-service and billing do not depend on it
        workload(after, false);
        // and some of those guilds kick the bot at once: their install and kick both wait for licensing
        List<String> kicked = after.subList(0, KICKED);
        kicked.forEach(umbra::kick);
        system.restart("licensing");

        List<String> all = new ArrayList<>(before);
        all.addAll(after);
        await().atMost(TIMEOUT).until(() -> all.stream().allMatch(this::licensed));
        SystemClient.awaitAllConsumed();

        kicked.forEach(guild -> umbra.entitlements(guild).body("status", equalTo("SUSPENDED")));
        // licensing, recovery and audit applied each guild's install before its kick; guild, recovery and audit the license's grant before its suspension
        SystemClient.assertEachAppliedInOrder(Aggregates.GUILD, kicked);
        SystemClient.assertEachAppliedInOrder(Aggregates.LICENSE, kicked.stream().map(guild -> umbra.license(guild).extract().<String>path("licenseId")).toList());
        SystemInvariants.assertHold("licensing-service killed", mark);
        // after the check, which settles billing: a subscription billing settles late is granted PRO late
        assertOneGrantPerGuild(all);
        assertSubscriptionsSettled(kicked);
    }

    @FaultSuite
    @Test
    void kafkaConnectKilledMidBurstSendsSomeEventsAgainAndEveryConsumerAppliesEachOnce() throws Exception {
        List<String> before = guilds(INSTALLS_BEFORE);
        List<String> after = guilds(INSTALLS_AFTER);
        KafkaConnectWorker connect = Devstack.shared().connect();
        SystemInvariants.Mark mark = SystemInvariants.mark();

        workloadWhile(before, false, connect::crash);
        // the outbox rows of these installs and subscriptions wait in the replication slots while Connect is away
        workload(after, false);
        connect.restart();

        List<String> all = new ArrayList<>(before);
        all.addAll(after);
        await().atMost(TIMEOUT).until(() -> all.stream().allMatch(this::licensed));
        SystemClient.awaitAllConsumed();

        assertThat(all).as("guilds whose BotInstalled audit-service did not store exactly once")
                .filteredOn(guild -> umbra.auditedEventsOf("guild", guild) != 1).isEmpty();
        try (KafkaProbe installs = KafkaProbe.read(Topics.of(Aggregates.GUILD))) {
            await().atMost(TIMEOUT).until(() -> installs.seen().stream().map(ConsumerRecord::key).collect(Collectors.toSet()).containsAll(all));
            List<ConsumerRecord<String, byte[]>> ofThese = installs.seen().stream().filter(r -> all.contains(r.key())).toList();
            long distinct = ofThese.stream().map(r -> KafkaProbe.header(r, EventHeaders.EVENT_ID)).distinct().count();
            assertThat(distinct).as("BotInstalled events").isEqualTo(all.size());
            // a figure for docs/reliability.md, not a property: how many depends on when the kill fell
            System.out.printf("Kafka Connect crash: %d of %d BotInstalled records were sent again after the restart%n",
                    ofThese.size() - distinct, distinct);
        }
        SystemInvariants.assertHold("Kafka Connect killed", mark);
        assertOneGrantPerGuild(all);
        assertSubscriptionsSettled(List.of());
    }

    @FaultSuite
    @Test
    void theKafkaBrokerStoppedForFifteenSecondsMidBurstLosesNoEvent() throws Exception {
        List<String> before = guilds(INSTALLS_BEFORE);
        List<String> after = guilds(INSTALLS_AFTER);
        KafkaBroker kafka = Devstack.shared().kafka();
        SystemInvariants.Mark mark = SystemInvariants.mark();

        long[] stoppedAt = new long[1];
        workloadWhile(before, false, () -> {
            kafka.stop();
            stoppedAt[0] = System.nanoTime();
        });
        // installs and subscriptions only need their service's database (and the gateway): they are answered while
        // the events wait in the replication slots
        workload(after, false);
        long away = Duration.ofSeconds(15).toNanos() - (System.nanoTime() - stoppedAt[0]);
        if (away > 0) {
            Thread.sleep(Duration.ofNanos(away).toMillis());
        }
        kafka.restart();
        long restartedAt = System.nanoTime();

        List<String> all = new ArrayList<>(before);
        all.addAll(after);
        await().atMost(TIMEOUT).until(() -> all.stream().allMatch(this::licensed));
        SystemClient.awaitAllConsumed();
        // a figure for docs/reliability.md, not a property
        System.out.printf("Kafka broker stopped: every guild licensed and every group caught up %d ms after its restart%n",
                Duration.ofNanos(System.nanoTime() - restartedAt).toMillis());

        assertThat(all).as("guilds whose BotInstalled audit-service did not store exactly once")
                .filteredOn(guild -> umbra.auditedEventsOf("guild", guild) != 1).isEmpty();
        SystemInvariants.assertHold("the Kafka broker stopped", mark);
        assertOneGrantPerGuild(all);
        assertSubscriptionsSettled(List.of());
        List<LogLines.Expectation> expected = new ArrayList<>(List.of(KAFKA_AWAY));
        expected.addAll(List.of(PARTITIONS_LOST));
        RunningSystem.assertCleanLogs(expected.toArray(LogLines.Expectation[]::new));
    }

    @FaultSuite
    @Test
    void postgresRestartedMidBurstLosesNoEventAndClientsThatTryAgainGetTheirInstalls() throws Exception {
        List<String> before = guilds(INSTALLS_BEFORE);
        List<String> after = guilds(INSTALLS_AFTER);
        PostgresServer postgres = Devstack.shared().postgres();
        SystemInvariants.Mark mark = SystemInvariants.mark();
        // a month on: billing renews every ACTIVE subscription of the tests before as the workload starts, around
        // the time the database goes away
        long renewedBefore = renewals();
        long renewing = Database.of("billing").count("select count(*) from subscription where status = 'ACTIVE'");
        umbra.advanceBillingClock(Duration.ofDays(32));

        long[] restartedAt = new long[1];
        // a client that meets the outage (503) tries the same call again; the database goes once a few installs answered,
        // while the others are still to come (licensing's first grant comes too late: the burst may be over by then)
        installsAnswered.set(0);
        workloadWhile(before, true, () -> installsAnswered.get() >= CLIENTS, () -> {
            postgres.stop();
            pause(Duration.ofSeconds(10));
            postgres.restart();
            restartedAt[0] = System.nanoTime();
        });
        // the outage came while the clients were installing: some of them met it and called again
        assertThat(calledAgain.get()).as("installs called again after the database's 503").isPositive();
        workload(after, false);

        List<String> all = new ArrayList<>(before);
        all.addAll(after);
        await().atMost(TIMEOUT).until(() -> all.stream().allMatch(this::licensed));
        SystemClient.awaitAllConsumed();
        // a figure for docs/reliability.md, not a property
        System.out.printf("PostgreSQL restarted: every guild licensed and every group caught up %d ms after the restart%n",
                Duration.ofNanos(System.nanoTime() - restartedAt[0]).toMillis());

        assertThat(all).as("guilds whose BotInstalled audit-service did not store exactly once")
                .filteredOn(guild -> umbra.auditedEventsOf("guild", guild) != 1).isEmpty();
        List<LogLines.Expectation> expected = new ArrayList<>(List.of(KAFKA_AWAY));
        expected.addAll(List.of(DATABASE_AWAY));
        expected.addAll(List.of(PARTITIONS_LOST));
        SystemInvariants.assertHold("PostgreSQL restarted", mark);
        assertOneGrantPerGuild(all);
        assertSubscriptionsSettled(List.of());
        long renewed = renewals() - renewedBefore;
        System.out.printf("PostgreSQL restarted: %d of %d subscriptions renewed around the restart%n", renewed, renewing);
        if (renewing > 0) {
            assertThat(renewed).as("renewals of the %d subscriptions ACTIVE a month before", renewing).isPositive();
        }
        RunningSystem.assertCleanLogs(expected.toArray(LogLines.Expectation[]::new));
    }

    /** Renewal payments billing has succeeded so far (period 0 is the first charge). */
    private static long renewals() {
        return Database.of("billing").count("select count(*) from payment where period >= 1 and status = 'SUCCEEDED'");
    }

    /** Runs the {@link #workload} and injects the fault once the first licenses show events flowing. */
    private void workloadWhile(List<String> guilds, boolean tryingAgain, Runnable fault) throws Exception {
        workloadWhile(guilds, tryingAgain, () -> guilds.stream().limit(CLIENTS).anyMatch(this::licensed), fault);
    }

    /** Runs the {@link #workload} and injects the fault once {@code due} holds. */
    private void workloadWhile(List<String> guilds, boolean tryingAgain, java.util.concurrent.Callable<Boolean> due, Runnable fault) throws Exception {
        ExecutorService burst = Executors.newSingleThreadExecutor();
        try {
            Future<?> running = burst.submit(() -> {
                workload(guilds, tryingAgain);
                return null;
            });
            await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(20)).until(due);
            fault.run();
            running.get();
        } finally {
            burst.shutdownNow();
        }
    }

    /**
     * Each guild has one license, and was granted each plan once: the install's FREE grant and, for a guild that
     * subscribed, the PRO grant (which comes first if licensing read the subscription before the install).
     */
    private static void assertOneGrantPerGuild(List<String> guilds) {
        Map<String, List<Grant>> granted = grantsPerGuild(guilds);
        assertThat(granted).as("LicenseGranted events per guild").hasSize(guilds.size()).allSatisfy((guild, grants) -> {
            assertThat(grants.stream().map(Grant::licenseId).distinct()).as("licenses of guild %s", guild).hasSize(1);
            assertThat(grants.stream().map(Grant::plan).distinct().count()).as("grants of guild %s: %s", guild, grants)
                    .isEqualTo(grants.size());
        });
    }

    private static List<String> guilds(int count) {
        return IntStream.range(0, count).mapToObj(i -> Snowflakes.random()).toList();
    }

    /**
     * The workload, from {@link #CLIENTS} clients: the bot installed in each guild and every
     * {@link #SUBSCRIBING_EVERY}th guild subscribed to PRO by a new user with a new billing key. A client
     * {@code tryingAgain} calls again what answered 502/503 (after its Retry-After), as a real one does;
     * otherwise the calls must all succeed the first time.
     */
    private void workload(List<String> guilds, boolean tryingAgain) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<?>> served = IntStream.range(0, guilds.size())
                    .<Future<?>>mapToObj(i -> clients.submit(() -> serve(guilds.get(i), i % SUBSCRIBING_EVERY == 0, tryingAgain))).toList();
            for (Future<?> guild : served) {
                guild.get();
            }
        } finally {
            clients.shutdownNow();
        }
    }

    private void serve(String guildId, boolean subscribing, boolean tryingAgain) {
        String owner = Snowflakes.random();
        Answer installed = call(tryingAgain, () -> given().baseUri(system.url("guild"))
                .auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                .body(Map.of("installerUserId", owner))
                .post("/guilds/{id}/installation", guildId));
        // 200: a try whose answer was lost with the database had installed it
        assertThat(installed.status()).as("install of %s", guildId).isIn(installed.triedAgain() ? List.of(200, 201) : List.of(201));
        installsAnswered.incrementAndGet();
        if (installed.triedAgain()) {
            calledAgain.incrementAndGet();
        }
        if (!subscribing) {
            return;
        }
        String user = UUID.randomUUID().toString();
        Answer key = call(tryingAgain, () -> given().baseUri(system.url("billing")).auth().oauth2(Tokens.user(user))
                .contentType(ContentType.JSON).body(Map.of("authKey", "auth-" + UUID.randomUUID()))
                .post("/users/{userId}/billing-keys", user));
        assertThat(key.status()).as("billing key for %s", guildId).isEqualTo(201);
        Answer subscription = call(tryingAgain, () -> given().baseUri(system.url("billing")).auth().oauth2(Tokens.user(user))
                .contentType(ContentType.JSON)
                .body(Map.of("guildId", guildId, "userId", user, "planCode", "PRO", "billingKeyId", key.response().<String>path("id")))
                .post("/subscriptions"));
        // 201 paid, 202 the charge's answer did not come in time (billing settles it); 409 after a try that may have taken effect
        assertThat(subscription.status()).as("subscription of %s: %s", guildId, subscription.response().asString())
                .isIn(subscription.triedAgain() ? List.of(201, 202, 409) : List.of(201, 202));
        subscribed.put(guildId, subscription.status());
    }

    private static Answer call(boolean tryingAgain, Supplier<Response> call) {
        return tryingAgain ? SystemClient.tryingAgain(PATIENCE, call) : new Answer(call.get(), false);
    }

    /**
     * Every guild of the workload that subscribed has exactly one subscription, which billing settled: ACTIVE and
     * entitled to PRO, SUSPENDED if the guild kicked the bot, or CANCELED when its first charge surely never took
     * money ({@link SystemInvariants} checked the money). Call after the invariants, which settle billing.
     */
    private void assertSubscriptionsSettled(List<String> kicked) {
        Database billing = Database.of("billing");
        Map<String, Long> byStatus = new TreeMap<>();
        subscribed.forEach((guildId, answer) -> {
            List<List<String>> rows = billing.rows("select status from subscription where guild_id = ?", guildId);
            assertThat(rows).as("subscriptions of guild %s (answered %d)", guildId, answer).hasSize(1);
            String status = rows.get(0).get(0);
            byStatus.merge(status, 1L, Long::sum);
            if (kicked.contains(guildId)) {
                assertThat(status).as("subscription of kicked guild %s", guildId).isEqualTo("SUSPENDED");
            } else if (answer == 201) {
                assertThat(status).as("paid subscription of guild %s", guildId).isEqualTo("ACTIVE");
            } else {
                assertThat(status).as("subscription of guild %s (answered %d)", guildId, answer).isIn("ACTIVE", "CANCELED");
            }
            if (status.equals("ACTIVE")) {
                await().atMost(TIMEOUT).untilAsserted(() -> umbra.entitlements(guildId).body("entitledPlan", equalTo("PRO")));
            }
        });
        System.out.printf("workload subscriptions: %d, by status %s%n", subscribed.size(), byStatus);
        assertThat(subscribed).as("subscriptions of the workload").isNotEmpty();
    }

    private boolean licensed(String guildId) {
        return given().baseUri(system.url("licensing")).auth().oauth2(Tokens.bot())
                .when().get("/guilds/{id}/license", guildId).statusCode() == 200;
    }

    /** A LicenseGranted event: which license, which plan. */
    private record Grant(String eventId, String licenseId, String plan) {
    }

    /**
     * LicenseGranted events on the license topic for these guilds, each event once however often its record came
     * (a record Connect sent again is the same event): read until every guild has one, then for a few seconds more,
     * so that a second grant on its way through Debezium would be counted too.
     */
    private static Map<String, List<Grant>> grantsPerGuild(List<String> guilds) {
        try (KafkaProbe licenses = KafkaProbe.read(Topics.of(Aggregates.LICENSE))) {
            await().atMost(TIMEOUT).until(() -> grants(licenses.seen(), guilds).size() == guilds.size());
            Map<String, List<Grant>> counted = grants(licenses.seen(), guilds);
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(6)).until(() -> grants(licenses.seen(), guilds).equals(counted));
            return counted;
        }
    }

    private static Map<String, List<Grant>> grants(List<ConsumerRecord<String, byte[]>> records, List<String> guilds) {
        Set<String> wanted = Set.copyOf(guilds);
        return records.stream()
                .filter(r -> "LicenseGranted".equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)))
                .filter(r -> wanted.contains(guildOf(r)))
                .collect(Collectors.groupingBy(FaultsIT::guildOf, Collectors.collectingAndThen(
                        Collectors.mapping(r -> new Grant(KafkaProbe.header(r, EventHeaders.EVENT_ID), field(r, "license_id"),
                                field(r, "plan_code")), Collectors.toSet()),
                        distinct -> distinct.stream().sorted(Comparator.comparing(Grant::eventId)).toList())));
    }

    private static String guildOf(ConsumerRecord<String, byte[]> record) {
        return field(record, "guild_id");
    }

    private static String field(ConsumerRecord<String, byte[]> record, String name) {
        try {
            return JSON.readTree(record.value()).path(name).asText();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
