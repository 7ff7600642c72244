package dev.umbra.e2e;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.DiscordSandbox;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.events.EventHeaders;
import dev.umbra.testing.Database;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.response.ValidatableResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** What the end-to-end tests do to the running system, as its clients and its operator would. */
final class SystemClient {

    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final LocalSystem system = RunningSystem.get();
    private final PaymentGatewaySandbox gateway = Devstack.shared().paymentGateway();
    private final DiscordSandbox discord = Devstack.shared().discord();

    /** A guild with the bot installed by {@code owner} (a Discord id), paid for by {@code user} (an Umbra user id). */
    record Subscribed(String guildId, String owner, UUID user, UUID billingKey, UUID subscription) {
    }

    /** A guild with the bot installed by {@code owner}, on the FREE plan. */
    record Installed(String guildId, String owner) {
    }

    /** The bot installed in a new guild (201), until licensing serves its FREE entitlements. */
    Installed installed() {
        return installedAll(1).get(0);
    }

    /** The bot installed in {@code count} new guilds at once, until licensing serves each its FREE entitlements. */
    List<Installed> installedAll(int count) {
        List<Installed> installed = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String guildId = Snowflakes.random();
            String owner = Snowflakes.random();
            given().baseUri(system.url("guild")).auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                    .body(Map.of("installerUserId", owner))
                    .when().post("/guilds/{id}/installation", guildId)
                    .then().statusCode(201);
            installed.add(new Installed(guildId, owner));
        }
        for (Installed guild : installed) {
            await().atMost(TIMEOUT).untilAsserted(() -> entitlements(guild.guildId()).body("entitledPlan", equalTo("FREE")));
        }
        return installed;
    }

    /**
     * Flow 1 up to the first charge: the bot installed, the guild's owner registered as a user (the bot, after Discord
     * OAuth), a billing key issued and PRO subscribed (201, ACTIVE) with the owner's own token.
     */
    Subscribed subscribedToPro() {
        Installed installed = installed();
        String guildId = installed.guildId();
        String owner = installed.owner();
        UUID user = UUID.fromString(given().baseUri(system.url("guild")).auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                .body(Map.of("discordUserId", owner))
                .when().post("/users")
                .then().statusCode(201).extract().path("userId"));
        String token = Tokens.person(user.toString(), owner);

        UUID billingKey = UUID.fromString(given().baseUri(system.url("billing")).auth().oauth2(token)
                .contentType(ContentType.JSON).body(Map.of("authKey", "auth-" + UUID.randomUUID()))
                .when().post("/users/{userId}/billing-keys", user)
                .then().statusCode(201).extract().path("id"));
        UUID subscription = UUID.fromString(given().baseUri(system.url("billing")).auth().oauth2(token)
                .contentType(ContentType.JSON)
                .body(Map.of("guildId", guildId, "userId", user.toString(), "planCode", "PRO", "billingKeyId", billingKey.toString()))
                .when().post("/subscriptions")
                .then().statusCode(201).body("status", equalTo("ACTIVE")).extract().path("id"));
        return new Subscribed(guildId, owner, user, billingKey, subscription);
    }

    /** An operator replays one aggregate's stored events through audit-service and waits until the replay completed. */
    ValidatableResponse replayed(String aggregateType, String aggregateId) {
        String replay = given().baseUri(system.url("audit")).auth().oauth2(Tokens.admin()).contentType(ContentType.JSON)
                .body(Map.of("aggregateType", aggregateType, "aggregateId", aggregateId))
                .when().post("/audit/replays")
                .then().statusCode(202).extract().path("id");
        await().atMost(TIMEOUT).until(() -> given().baseUri(system.url("audit")).auth().oauth2(Tokens.admin())
                .get("/audit/replays/{id}", replay).then().statusCode(200).extract().<String>path("status"), status -> status.equals("COMPLETED"));
        return given().baseUri(system.url("audit")).auth().oauth2(Tokens.admin()).get("/audit/replays/{id}", replay).then().statusCode(200);
    }

    /** How many events of the aggregate audit-service stored. */
    int auditedEventsOf(String aggregateType, String aggregateId) {
        return given().baseUri(system.url("audit")).auth().oauth2(Tokens.admin())
                .queryParam("aggregateType", aggregateType).queryParam("aggregateId", aggregateId).queryParam("limit", 500)
                .when().get("/audit/events").then().statusCode(200).extract().<List<Object>>path("events").size();
    }

    void kick(String guildId) {
        given().baseUri(system.url("guild")).auth().oauth2(Tokens.bot())
                .when().delete("/guilds/{id}/installation", guildId)
                .then().statusCode(200);
    }

    /** The bot back in a guild that kicked it, installed by its owner. */
    void reinstall(String guildId, String owner) {
        given().baseUri(system.url("guild")).auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                .body(Map.of("installerUserId", owner))
                .when().post("/guilds/{id}/installation", guildId)
                .then().statusCode(org.hamcrest.Matchers.oneOf(200, 201));
    }

    ValidatableResponse entitlements(String guildId) {
        return given().baseUri(system.url("licensing")).auth().oauth2(Tokens.bot())
                .when().get("/guilds/{id}/entitlements", guildId).then().statusCode(200);
    }

    ValidatableResponse license(String guildId) {
        return given().baseUri(system.url("licensing")).auth().oauth2(Tokens.bot())
                .when().get("/guilds/{id}/license", guildId).then().statusCode(200);
    }

    /** The guild's license as {@code token} may read it (a person: only a guild they own), whatever the answer. */
    ValidatableResponse licenseAs(String token, String guildId) {
        return given().baseUri(system.url("licensing")).auth().oauth2(token).when().get("/guilds/{id}/license", guildId).then();
    }

    ValidatableResponse subscription(Subscribed paid) {
        return given().baseUri(system.url("billing")).auth().oauth2(Tokens.user(paid.user().toString()))
                .when().get("/subscriptions/{id}", paid.subscription()).then().statusCode(200);
    }

    /**
     * Moves billing's clock once every charge billing has started has reached the gateway. Moved a day while
     * another subscription's renewal was still on its way, billing's reconciliation would take that payment
     * for one the gateway never received, fail it, and then give back the charge that arrived after all (a
     * WARN): right, but only because the test skipped a day in a few milliseconds. A charge that has not
     * arrived within 10 s is taken to be one that never will (a fault scenario's), and the clock moves anyway.
     */
    void advanceBillingClockOnceChargesArrived(Duration by) {
        awaitChargesArrived();
        advanceBillingClock(by);
    }

    /** Until every payment billing has under way (any replica's) has its charge at the gateway, for at most 10 s. */
    void awaitChargesArrived() {
        Database billing = Database.of("billing");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline && !billing.rows("select order_id from payment where status = 'IN_PROGRESS'").stream()
                .allMatch(row -> !gateway().chargesOf(row.get(0)).isEmpty())) {
            pause(Duration.ofMillis(100));
        }
    }

    void advanceBillingClock(Duration by) {
        given().baseUri(system.url("billing")).auth().oauth2(Tokens.admin()).contentType(ContentType.JSON)
                .body(Map.of("by", by.toString()))
                .when().post("/test-control/clock/advance")
                .then().statusCode(200);
    }

    /** billing's clock, where the tests have moved it. */
    Instant billingClock() {
        return Instant.parse(given().baseUri(system.url("billing")).auth().oauth2(Tokens.admin())
                .when().get("/test-control/clock")
                .then().statusCode(200).extract().path("now"));
    }

    /**
     * A billing process starts at the machine's time: after a restart, its clock goes back to where the tests had
     * moved it, or work it scheduled on the moved clock (the renewal scan's next run) would wait for that time again.
     */
    void restoreBillingClock(Instant before) {
        Duration behind = Duration.between(billingClock(), before);
        if (!behind.isNegative()) {
            advanceBillingClock(behind);
        }
    }

    PaymentGatewaySandbox gateway() {
        return gateway;
    }

    DiscordSandbox discord() {
        return discord;
    }

    /** A call's last answer, and whether it was made again after a 502/503. */
    record Answer(Response response, boolean triedAgain) {
        int status() {
            return response.statusCode();
        }
    }

    /**
     * Calls again after a 502 or 503 (nothing kept, or a circuit open), waiting what its Retry-After asks, until
     * {@code patience} runs out: as a well-behaved client does.
     */
    static Answer tryingAgain(Duration patience, Supplier<Response> call) {
        long deadline = System.nanoTime() + patience.toNanos();
        Response answer = call.get();
        boolean again = false;
        while (System.nanoTime() < deadline && (answer.statusCode() == 502 || answer.statusCode() == 503)) {
            String retryAfter = answer.header("Retry-After");
            pause(retryAfter == null ? Duration.ofMillis(200) : Duration.ofSeconds(Long.parseLong(retryAfter)));
            answer = call.get();
            again = true;
        }
        return new Answer(answer, again);
    }

    /** Waits, as a client between two tries or a test letting a fault last. */
    static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** What the guild's owner was told on Discord, in order. */
    List<String> toldTo(String owner) {
        return discord.deliveredTo(owner).stream().map(DiscordSandbox.Delivered::content).toList();
    }

    /** What the gateway charged for the subscription: every idempotency key of its charges names it. */
    List<PaymentGatewaySandbox.Charge> chargesOf(UUID subscription) {
        return gateway.charges().stream()
                .filter(charge -> charge.idempotencyKey() != null && charge.idempotencyKey().startsWith("sub-" + subscription))
                .toList();
    }

    /** The event types of one aggregate on its topic, in order, read until one of type {@code awaited} is there. */
    static List<String> eventTypes(String topic, String aggregateId, String awaited) {
        return records(topic, aggregateId, awaited).stream().map(r -> KafkaProbe.header(r, EventHeaders.EVENT_TYPE)).toList();
    }

    /**
     * The records of one aggregate on its topic, in order: once one of type {@code awaited} is there, everything the topic
     * holds by then (a second copy after it too, which "only once" checks must see).
     */
    static List<ConsumerRecord<String, byte[]>> records(String topic, String aggregateId, String awaited) {
        try (KafkaProbe probe = KafkaProbe.read(topic)) {
            probe.awaitRecord(r -> aggregateId.equals(r.key()) && awaited.equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)), TIMEOUT);
            return probe.seenToEnd().stream().filter(r -> aggregateId.equals(r.key())).toList();
        }
    }

    /** Until guild's dispatcher has no message left to send (none due, waiting or being sent): what it was given reached Discord. */
    static void awaitMessagesSent() {
        Database guild = Database.of("guild");
        await().atMost(TIMEOUT).until(() -> guild.count("select count(*) from work_item where queue = 'discord-dm' "
                + "and status in ('pending', 'leased')") == 0);
    }

    /**
     * The operator's "reset offsets to earliest" in Kafka UI, for every consumer group of the services, each
     * on every partition it has committed. Kafka takes it only from a group without members: stop its service first.
     */
    static void resetConsumerGroupsToEarliest() {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, Devstack.shared().kafka().bootstrapServers()))) {
            await().atMost(TIMEOUT).ignoreExceptions().untilAsserted(() -> {
                for (String group : serviceGroups(admin)) {
                    Set<TopicPartition> partitions = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().keySet();
                    Map<TopicPartition, OffsetAndMetadata> earliest = admin.listOffsets(partitions.stream()
                                    .collect(Collectors.toMap(p -> p, p -> OffsetSpec.earliest()))).all().get()
                            .entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> new OffsetAndMetadata(e.getValue().offset())));
                    admin.alterConsumerGroupOffsets(group, earliest).all().get();
                }
            });
        }
    }

    private static List<String> serviceGroups(Admin admin) throws Exception {
        return admin.listConsumerGroups().all().get().stream().map(ConsumerGroupListing::groupId)
                .filter(group -> group.contains("-service.")).toList();
    }

    /**
     * Every consumer, in every service, applied the aggregate's events in the aggregate's order: in the
     * order it claimed them ({@code processed_event}: by the time of the claiming transaction, one after
     * another for a partition, then by the number the claim statement gave each row, which claims a batch
     * in record order), against the position the producer's
     * outbox gave each event (its {@code sequence}, as audit stored it).
     */
    static void assertAppliedInOrder(String aggregateType, String aggregateId) {
        assertEachAppliedInOrder(aggregateType, List.of(aggregateId));
    }

    /** {@link #assertAppliedInOrder(String, String)} for each of the aggregates, once every consumer caught up. */
    static void assertEachAppliedInOrder(String aggregateType, List<String> aggregateIds) {
        awaitAllConsumed();
        aggregateIds.forEach(aggregateId -> appliedInOrder(aggregateType, aggregateId));
    }

    private static void appliedInOrder(String aggregateType, String aggregateId) {
        Map<String, Long> sequence = new HashMap<>();
        String stored = Database.of("audit").text("select coalesce(string_agg(event_id::text || ' ' || sequence, ','), '') from audit_log "
                + "where aggregate_type = ? and aggregate_id = ?", aggregateType, aggregateId);
        for (String row : stored.split(",")) {
            if (!row.isEmpty()) {
                sequence.put(row.split(" ")[0], Long.parseLong(row.split(" ")[1]));
            }
        }
        assertThat(sequence).as("events of %s %s in audit", aggregateType, aggregateId).hasSizeGreaterThan(1);
        int checked = 0;
        for (String database : List.of("guild", "licensing", "billing", "recovery", "audit")) {
            String applied = Database.of(database).text("select coalesce(string_agg(consumer || ' ' || event_id::text || ' ' "
                    + "|| (extract(epoch from processed_at) * 1000000)::bigint, ',' order by processed_at, claim_order), '') from processed_event "
                    + "where aggregate_type = ? and aggregate_id = ?", aggregateType, aggregateId);
            Map<String, List<long[]>> byConsumer = new HashMap<>();
            for (String row : applied.split(",")) {
                if (!row.isEmpty()) {
                    String[] parts = row.split(" ");
                    byConsumer.computeIfAbsent(parts[0], c -> new ArrayList<>()).add(new long[] {Long.parseLong(parts[2]), sequence.get(parts[1])});
                }
            }
            checked += (int) byConsumer.values().stream().filter(rows -> rows.size() > 1).count();
            byConsumer.forEach((consumer, rows) -> {
                for (int i = 1; i < rows.size(); i++) {
                    long[] before = rows.get(i - 1);
                    long[] after = rows.get(i);
                    assertThat(after[1] > before[1])
                            .as("%s (%s) applied event %d of %s %s after event %d", consumer, database, after[1], aggregateType, aggregateId,
                                    before[1]).isTrue();
                }
            });
        }
        assertThat(checked).as("consumers that applied more than one event of %s %s", aggregateType, aggregateId).isPositive();
    }

    /**
     * The operator's check that the services have caught up: every consumer group of a service has
     * committed, on every partition of every topic it reads, the partition's end offset.
     */
    static void awaitAllConsumed() {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, Devstack.shared().kafka().bootstrapServers()))) {
            // one round of four requests for all groups, four times a second: groups commit every second (the local
            // commit interval), and a round per group ten times a second kept the broker busy for nothing
            await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(250)).until(() -> {
                List<String> groups = serviceGroups(admin);
                if (groups.isEmpty()) {
                    return false;
                }
                Map<String, Map<TopicPartition, OffsetAndMetadata>> committed = admin.listConsumerGroupOffsets(groups.stream()
                        .collect(Collectors.toMap(group -> group, group -> new ListConsumerGroupOffsetsSpec()))).all().get();
                Set<String> topics = committed.values().stream().flatMap(offsets -> offsets.keySet().stream())
                        .map(TopicPartition::topic).collect(Collectors.toSet());
                Map<String, List<TopicPartition>> partitionsOf = admin.describeTopics(topics).allTopicNames().get().values().stream()
                        .collect(Collectors.toMap(TopicDescription::name, topic -> topic.partitions().stream()
                                .map(p -> new TopicPartition(topic.name(), p.partition())).toList()));
                Map<TopicPartition, Long> ends = admin.listOffsets(partitionsOf.values().stream().flatMap(List::stream)
                                .collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()))).all().get()
                        .entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
                for (Map<TopicPartition, OffsetAndMetadata> offsets : committed.values()) {
                    Set<String> read = offsets.keySet().stream().map(TopicPartition::topic).collect(Collectors.toSet());
                    for (String topic : read) {
                        for (TopicPartition partition : partitionsOf.get(topic)) {
                            OffsetAndMetadata at = offsets.get(partition);
                            long end = ends.get(partition);
                            if (end > 0 && (at == null || at.offset() < end)) {
                                return false;
                            }
                        }
                    }
                }
                return true;
            });
        }
    }
}
