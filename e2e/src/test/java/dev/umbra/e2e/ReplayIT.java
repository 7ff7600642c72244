package dev.umbra.e2e;

import static dev.umbra.e2e.SystemClient.TIMEOUT;
import static dev.umbra.e2e.SystemClient.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.devstack.LocalSystem;
import dev.umbra.e2e.SystemClient.Installed;
import dev.umbra.e2e.SystemClient.Subscribed;
import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.billing.SubscriptionSuspended;
import dev.umbra.testing.Database;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.LogLines;
import dev.umbra.testing.OutboxRecords;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Replay as operators do it with Kafka UI: re-producing records that were already applied (same key,
 * value and headers), resetting consumer groups to the earliest offset, an audit replay: changes nothing
 * anywhere: no state, no new event, no second message, no charge. A dead letter redriven after its cause
 * is repaired is applied once, and a second redrive of it changes nothing.
 */
class ReplayIT {

    private static final String[] SERVICES = {"guild", "licensing", "billing", "recovery", "audit"};

    private final LocalSystem system = RunningSystem.get();
    private final SystemClient umbra = new SystemClient();

    /**
     * The five services stopped at once on two cores: a consumer's close may not hear back from the group
     * coordinator within its timeout; the member then leaves the group by session timeout (the reset waits).
     */
    private static final LogLines.Expectation CLOSED_UNDER_LOAD = new LogLines.Expectation(
            "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", "WARN", "Close timed out with .* pending requests to coordinator");

    /**
     * The same restart, seen by billing: a look-up of a payment at the gateway (reconciliation, automatic refunds) can
     * wait past its 500 ms read timeout while five JVMs start on two cores, and one unanswered look-up in five opens
     * the look-up circuit (seen once in the fault suite of 2026-11-27). Charges have a circuit of their own.
     */
    private static final LogLines.Expectation LOOKUP_CIRCUIT_UNDER_LOAD = new LogLines.Expectation(
            "dev.umbra.billing.gateway.GatewayGuards", "WARN", "\\[pg-query circuit breaker\\]");

    /** The dead letter of the redrive test, sent on purpose. */
    private static final LogLines.Expectation DEAD_LETTERED = new LogLines.Expectation(
            "dev.umbra.platform.inbox.DeadLetters", "WARN", "dead-lettering umbra.subscription-.* for licensing: .*is unknown");

    @AfterAll
    static void logsAreClean() {
        RunningSystem.assertCleanLogs(CLOSED_UNDER_LOAD, LOOKUP_CIRCUIT_UNDER_LOAD, DEAD_LETTERED);
    }

    @Test
    void aDeadLetterRedrivenAfterItsCauseIsRepairedIsAppliedOnceAndASecondRedriveChangesNothing() {
        Installed guild = umbra.installed();
        String licenseId = umbra.license(guild.guildId()).extract().path("licenseId");
        UUID subscription = UUID.randomUUID();
        Instant started = Instant.now().minusSeconds(60);

        // billing's SubscriptionStarted never reached the topic (the fault being repaired); its suspension did
        UUID suspension = OutboxRecords.publish(new SubscriptionSuspended(subscription, "PAYMENT_FAILED"), Instant.now());
        ConsumerRecord<String, byte[]> letter = deadLetterOf(suspension);
        assertThat(KafkaProbe.header(letter, "dlq.consumer")).isEqualTo("licensing");
        assertThat(KafkaProbe.header(letter, "dlq.error.message")).contains("subscription " + subscription + " is unknown");

        // the repair: the missing event, with the time it happened
        OutboxRecords.publish(new SubscriptionStarted(subscription, guild.guildId(), "PRO", started.plus(Duration.ofDays(30))), started);
        await().atMost(TIMEOUT).untilAsserted(() -> umbra.entitlements(guild.guildId()).body("entitledPlan", equalTo("PRO")));

        redrive(letter);
        await().atMost(TIMEOUT).untilAsserted(() -> umbra.license(guild.guildId()).body("status", equalTo("SUSPENDED")));
        SystemClient.awaitAllConsumed();
        List<String> suspended = suspensionsOf(licenseId);
        assertThat(suspended).hasSize(1);
        await().atMost(TIMEOUT).until(() -> umbra.toldTo(guild.owner()).contains("Umbra is paused for your server (PAYMENT_FAILED)."));
        List<String> told = umbra.toldTo(guild.owner());
        assertThat(told).containsOnlyOnce("Umbra is paused for your server (PAYMENT_FAILED).");
        String license = umbra.license(guild.guildId()).extract().asString();
        int audited = umbra.auditedEventsOf("subscription", subscription.toString());
        assertThat(audited).as("SubscriptionStarted and SubscriptionSuspended in audit").isEqualTo(2);

        redrive(letter);
        SystemClient.awaitAllConsumed();

        assertThat(umbra.license(guild.guildId()).extract().asString()).isEqualTo(license);
        assertThat(umbra.auditedEventsOf("subscription", subscription.toString())).isEqualTo(audited);
        assertThat(suspensionsOf(licenseId)).isEqualTo(suspended);
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> umbra.toldTo(guild.owner()).equals(told));
    }

    @Test
    void reProducingEveryRecordOfAKickedSubscriptionChangesNothingAnywhere() {
        Subscribed paid = umbra.subscribedToPro();
        await().atMost(TIMEOUT).untilAsserted(() -> umbra.entitlements(paid.guildId()).body("entitledPlan", equalTo("PRO")));
        String licenseId = umbra.license(paid.guildId()).extract().path("licenseId");
        umbra.kick(paid.guildId());
        await().atMost(TIMEOUT).until(() -> umbra.toldTo(paid.owner())
                .containsAll(List.of("Your PRO subscription is active. Thank you!", "Umbra is paused for your server (BOT_KICKED).")));
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

    @Test
    void anAuditReplayOfALicenseChangesNothingWhereItWasAppliedAndRebuildsAConsumerWhoseStateWasCleared() {
        Subscribed paid = umbra.subscribedToPro();
        await().atMost(TIMEOUT).untilAsserted(() -> umbra.entitlements(paid.guildId()).body("entitledPlan", equalTo("PRO")));
        String licenseId = umbra.license(paid.guildId()).extract().path("licenseId");
        Database recovery = Database.of("recovery");
        String planRow = "select guild_id || ' ' || plan || ' ' || status from license_plan where license_id = ?::uuid";
        await().atMost(TIMEOUT).until(() -> recovery.count("select count(*) from license_plan where license_id = ?::uuid", licenseId) == 1);
        SystemClient.awaitAllConsumed();
        String plan = recovery.text(planRow, licenseId);
        String license = umbra.license(paid.guildId()).extract().asString();
        int audited = umbra.auditedEventsOf("license", licenseId);
        // guild-service applied the license's events (it remembers the license's guild): it must see the copies as repeats
        Database guild = Database.of("guild");
        String guildApplied = "select string_agg(event_id::text || ' ' || processed_at::text, ',' order by event_id) from processed_event "
                + "where aggregate_type = 'license' and aggregate_id = ?";
        String appliedByGuild = guild.text(guildApplied, licenseId);
        // consumed is not yet told: the welcome waits in guild's Discord queue for the dispatcher's next round
        await().atMost(TIMEOUT).until(() -> umbra.toldTo(paid.owner()).contains("Your PRO subscription is active. Thank you!"));
        List<String> told = umbra.toldTo(paid.owner());

        // recovery is repaired: it forgets the license's plan and that it ever applied the license's events
        recovery.count("with gone as (delete from license_plan where license_id = ?::uuid returning 1) select count(*) from gone", licenseId);
        recovery.count("with gone as (delete from processed_event where aggregate_type = 'license' and aggregate_id = ? returning 1) "
                + "select count(*) from gone", licenseId);

        umbra.replayed("license", licenseId).body("published", equalTo(audited)).body("refusedMasked", equalTo(0));
        SystemClient.awaitAllConsumed();

        assertThat(recovery.text(planRow, licenseId)).isEqualTo(plan).startsWith(paid.guildId() + " PRO");
        assertThat(umbra.license(paid.guildId()).extract().asString()).isEqualTo(license);
        assertThat(umbra.auditedEventsOf("license", licenseId)).isEqualTo(audited);
        assertThat(appliedByGuild).isNotNull();
        assertThat(guild.text(guildApplied, licenseId)).isEqualTo(appliedByGuild);
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> umbra.toldTo(paid.owner()).equals(told));
        // the topic holds the originals and their copies, and nothing any consumer published in answer
        List<String> onTopic = eventIds(records(Topics.of(Aggregates.LICENSE), licenseId, "LicenseGranted"));
        assertThat(onTopic).hasSize(2 * audited);
        assertThat(onTopic.stream().distinct()).hasSize(audited);
    }

    @Test
    void everyConsumerGroupResetToTheEarliestOffsetReadsEverythingAgainAndChangesNothing() {
        Subscribed paid = umbra.subscribedToPro();
        await().atMost(TIMEOUT).untilAsserted(() -> umbra.entitlements(paid.guildId()).body("entitledPlan", equalTo("PRO")));
        String licenseId = umbra.license(paid.guildId()).extract().path("licenseId");
        umbra.kick(paid.guildId());
        await().atMost(TIMEOUT).until(() -> umbra.toldTo(paid.owner())
                .containsAll(List.of("Your PRO subscription is active. Thank you!", "Umbra is paused for your server (BOT_KICKED).")));
        List<String> guildEvents = eventIds(records(Topics.of(Aggregates.GUILD), paid.guildId(), "BotKicked"));
        List<String> subscriptionEvents = eventIds(records(Topics.of(Aggregates.SUBSCRIPTION), paid.subscription().toString(),
                "SubscriptionSuspended"));
        List<String> licenseEvents = eventIds(records(Topics.of(Aggregates.LICENSE), licenseId, "LicenseSuspended"));
        SystemClient.awaitAllConsumed();
        List<String> told = umbra.toldTo(paid.owner());
        String entitlements = umbra.entitlements(paid.guildId()).extract().asString();
        String license = umbra.license(paid.guildId()).extract().asString();
        String subscription = umbra.subscription(paid).extract().asString();
        int charges = umbra.chargesOf(paid.subscription()).size();
        int audited = umbra.auditedEventsOf("license", licenseId) + umbra.auditedEventsOf("guild", paid.guildId())
                + umbra.auditedEventsOf("subscription", paid.subscription().toString());

        Instant billingAt = umbra.billingClock();
        system.stop(SERVICES);
        SystemClient.resetConsumerGroupsToEarliest();
        system.restart(SERVICES);
        umbra.restoreBillingClock(billingAt);
        SystemClient.awaitAllConsumed();

        assertThat(umbra.entitlements(paid.guildId()).extract().asString()).isEqualTo(entitlements);
        assertThat(umbra.license(paid.guildId()).extract().asString()).isEqualTo(license);
        assertThat(umbra.subscription(paid).extract().asString()).isEqualTo(subscription);
        assertThat(umbra.chargesOf(paid.subscription())).hasSize(charges);
        assertThat(umbra.auditedEventsOf("license", licenseId) + umbra.auditedEventsOf("guild", paid.guildId())
                + umbra.auditedEventsOf("subscription", paid.subscription().toString())).isEqualTo(audited);
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> umbra.toldTo(paid.owner()).equals(told));
        // no consumer published anything in answer to what it read again
        assertThat(eventIds(records(Topics.of(Aggregates.GUILD), paid.guildId(), "BotKicked"))).isEqualTo(guildEvents);
        assertThat(eventIds(records(Topics.of(Aggregates.SUBSCRIPTION), paid.subscription().toString(), "SubscriptionSuspended")))
                .isEqualTo(subscriptionEvents);
        assertThat(eventIds(records(Topics.of(Aggregates.LICENSE), licenseId, "LicenseSuspended"))).isEqualTo(licenseEvents);
    }

    private static List<String> suspensionsOf(String licenseId) {
        return eventIds(records(Topics.of(Aggregates.LICENSE), licenseId, "LicenseSuspended").stream()
                .filter(r -> "LicenseSuspended".equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE))).toList());
    }

    /** The dead letter of a subscription event, read from {@code umbra.subscription.dlq} once it is there. */
    private static ConsumerRecord<String, byte[]> deadLetterOf(UUID eventId) {
        try (KafkaProbe probe = KafkaProbe.read(Topics.deadLetterOf(Topics.of(Aggregates.SUBSCRIPTION)))) {
            return probe.awaitRecord(r -> eventId.toString().equals(KafkaProbe.header(r, EventHeaders.EVENT_ID)), TIMEOUT);
        }
    }

    /** As docs/operations.md tells an operator: the dead letter produced to its source topic with its key, value and headers. */
    private static void redrive(ConsumerRecord<String, byte[]> letter) {
        KafkaProbe.produceAll(List.of(new ProducerRecord<>(KafkaProbe.header(letter, "dlq.source.topic"), null, letter.key(), letter.value(),
                letter.headers())));
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
