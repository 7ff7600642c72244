package dev.umbra.billing.subscription;

import static dev.umbra.billing.BillingFixtures.eventTypes;
import static dev.umbra.billing.BillingFixtures.newKey;
import static dev.umbra.billing.BillingFixtures.payWith;
import static dev.umbra.billing.BillingFixtures.subscribe;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.umbra.billing.PayingUserTest;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.events.billing.BillingKeyDeleted;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.events.guild.GuildDeleted;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InboxProbe;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Other contexts' events (and billing's own BillingKeyDeleted) through Kafka and the inbox: applied
 * once however often delivered, and converging on the same subscription in any order.
 */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
class SubscriptionConsumersIT extends PayingUserTest {

    @InjectDevstack
    InboxProbe inbox;

    @Test
    void aKickedBotSuspendsOnceHoweverOftenItIsDelivered() {
        String guild = Snowflakes.random();
        UUID id = active(guild);
        UUID kicked = UUID.randomUUID();
        OutboxRecords.publish(new BotKicked(guild), kicked, Instant.now());
        OutboxRecords.publish(new BotKicked(guild), kicked, Instant.now());
        UUID kickedAgain = OutboxRecords.publish(new BotKicked(guild), Instant.now());

        inbox.awaitProcessed(kickedAgain);
        assertThat(status(id)).isEqualTo("SUSPENDED");
        assertThat(db.text("select suspensions from subscription where id = ?", id)).isEqualTo("BOT_KICKED");
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> eventTypes(topic, id.toString()).size() >= 2);
            assertThat(eventTypes(topic, id.toString())).containsExactly("SubscriptionStarted", "SubscriptionSuspended");
        }
    }

    @Test
    void kickAndDeletionConvergeOnCanceledInEitherOrder() {
        String kickedFirst = Snowflakes.random();
        String deletedFirst = Snowflakes.random();
        UUID a = active(kickedFirst);
        UUID b = active(deletedFirst);
        OutboxRecords.publish(new BotKicked(kickedFirst), Instant.now());
        UUID lastA = OutboxRecords.publish(new GuildDeleted(kickedFirst), Instant.now());
        OutboxRecords.publish(new GuildDeleted(deletedFirst), Instant.now());
        UUID lastB = OutboxRecords.publish(new BotKicked(deletedFirst), Instant.now());

        inbox.awaitProcessed(lastA);
        inbox.awaitProcessed(lastB);
        assertThat(status(a)).isEqualTo("CANCELED");
        assertThat(status(b)).isEqualTo("CANCELED");
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> eventTypes(topic, a.toString()).size() >= 3 && eventTypes(topic, b.toString()).size() >= 2);
            assertThat(eventTypes(topic, a.toString())).containsExactly("SubscriptionStarted", "SubscriptionSuspended", "SubscriptionCanceled");
            assertThat(eventTypes(topic, b.toString())).containsExactly("SubscriptionStarted", "SubscriptionCanceled");
        }
    }

    @Test
    void aDeletedBillingKeySuspendsWhatItPaysForOnce() {
        String guild = Snowflakes.random();
        UUID id = active(guild);
        UUID otherKeysSubscription = active(Snowflakes.random(), newKey(user));
        given().auth().oauth2(Tokens.user(user.toString())).when().delete("/users/{userId}/billing-keys/{id}", user, key)
                .then().statusCode(204);

        await().atMost(WAIT).until(() -> "SUSPENDED".equals(status(id)));
        UUID duplicate = OutboxRecords.publish(new BillingKeyDeleted(user, key), Instant.now());
        inbox.awaitProcessed(duplicate);
        assertThat(db.text("select suspensions from subscription where id = ?", id)).isEqualTo("BILLING_KEY_DELETED");
        assertThat(status(otherKeysSubscription)).isEqualTo("ACTIVE");
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> eventTypes(topic, id.toString()).size() >= 2);
            assertThat(eventTypes(topic, id.toString())).containsExactly("SubscriptionStarted", "SubscriptionSuspended");
        }
    }

    @Test
    void theBotBackResumesOnceHoweverOftenItIsDeliveredForEveryGuildOfABurst() {
        List<String> guilds = new ArrayList<>();
        List<UUID> subscriptions = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            guilds.add(Snowflakes.random());
            subscriptions.add(active(guilds.get(i)));
        }
        OutboxRecords.publishAll(guilds.stream().map(BotKicked::new).toList(), Instant.now());
        List<BotInstalled> back = guilds.stream().map(guild -> new BotInstalled(guild, Snowflakes.random())).toList();
        List<UUID> installs = new ArrayList<>();
        for (BotInstalled event : back) {
            UUID eventId = UUID.randomUUID();
            installs.add(eventId);
            OutboxRecords.publish(event, eventId, Instant.now());
            OutboxRecords.publish(event, eventId, Instant.now());
        }
        // a later, distinct BotInstalled (a reinstall the guild service saw twice) finds nothing suspended
        UUID secondInstall = OutboxRecords.publish(new BotInstalled(guilds.get(0), Snowflakes.random()), Instant.now());

        installs.forEach(inbox::awaitProcessed);
        inbox.awaitProcessed(secondInstall);
        subscriptions.forEach(id -> assertThat(status(id)).isEqualTo("ACTIVE"));
        assertThat(db.text("select suspensions from subscription where id = ?", subscriptions.get(0))).isEmpty();
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> subscriptions.stream().allMatch(id -> eventTypes(topic, id.toString()).size() >= 3));
            for (UUID id : subscriptions) {
                assertThat(eventTypes(topic, id.toString())).containsExactly("SubscriptionStarted", "SubscriptionSuspended", "SubscriptionResumed");
            }
        }
    }

    @Test
    void anotherBillingKeyResumesWhatTheDeletedOnePaidForAndTwoChangesAtOnceResumeItOnce() throws Exception {
        UUID id = active(Snowflakes.random());
        given().auth().oauth2(Tokens.user(user.toString())).when().delete("/users/{userId}/billing-keys/{id}", user, key)
                .then().statusCode(204);
        await().atMost(WAIT).until(() -> "SUSPENDED".equals(status(id)));
        payWith(user, id, key).then().statusCode(422).contentType("application/problem+json");
        payWith(user, id, newKey(UUID.randomUUID())).then().statusCode(422).contentType("application/problem+json");
        payWith(UUID.randomUUID(), id, newKey(user)).then().statusCode(403).contentType("application/problem+json");
        payWith(user, UUID.randomUUID(), newKey(user)).then().statusCode(404).contentType("application/problem+json");
        given().auth().oauth2(Tokens.user(user.toString())).contentType("application/json").body("{\"billingKeyId\":\"not-a-uuid\"}")
                .when().put("/subscriptions/{id}/billing-key", id).then().statusCode(400).contentType("application/problem+json");
        assertThat(status(id)).isEqualTo("SUSPENDED");

        List<UUID> newKeys = List.of(newKey(user), newKey(user));
        ExecutorService clients = Executors.newFixedThreadPool(2);
        try {
            List<Future<Integer>> answers = newKeys.stream()
                    .map(newKey -> clients.submit(() -> payWith(user, id, newKey).then().extract().statusCode())).toList();
            for (Future<Integer> answer : answers) {
                assertThat(answer.get()).isEqualTo(200);
            }
        } finally {
            clients.shutdownNow();
        }
        assertThat(status(id)).isEqualTo("ACTIVE");
        assertThat(UUID.fromString(db.text("select billing_key_id::text from subscription where id = ?", id))).isIn(newKeys);
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> eventTypes(topic, id.toString()).size() >= 3);
            assertThat(eventTypes(topic, id.toString())).containsExactly("SubscriptionStarted", "SubscriptionSuspended", "SubscriptionResumed");
        }
    }

    @Test
    void aGuildWithoutSubscriptionsIsNothingToDo() {
        UUID deleted = OutboxRecords.publish(new GuildDeleted(Snowflakes.random()), Instant.now());
        inbox.awaitProcessed(deleted);
    }

    private UUID active(String guild) {
        return active(guild, key);
    }

    private UUID active(String guild, UUID billingKey) {
        return UUID.fromString(subscribe(user, guild, "PRO", billingKey).then().statusCode(201).extract().path("id"));
    }

    String status(UUID id) {
        return db.text("select status from subscription where id = ?", id);
    }
}
