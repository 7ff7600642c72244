package dev.umbra.billing.subscription;

import static dev.umbra.billing.BillingFixtures.eventTypes;
import static dev.umbra.billing.BillingFixtures.newKey;
import static dev.umbra.billing.BillingFixtures.payWith;
import static dev.umbra.billing.BillingFixtures.subscribe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.notNullValue;

import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.events.guild.GuildDeleted;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.TcpProxy;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The database goes away while guild events arrive (kicks, a return, a deletion): once it is back, each is applied exactly once, with one event each. */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.platform.inbox.Inbox", message = "waits at")
@ExpectedLog(category = "dev.umbra.platform.workqueue.WorkQueues", message = "round failed")
@ExpectedLog(category = "dev.umbra.platform.web.ProblemMappers", message = "database unavailable")
@ExpectedLog(category = "dev.umbra.platform.storage.DatabaseGuards", message = "circuit opened")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
class ConsumerDatabaseOutageIT {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @InjectDevstack
    Database db;

    @InjectDevstack
    PaymentGatewaySandbox gateway;

    @InjectDevstack
    TcpProxy link;

    @AfterEach
    void restore() {
        link.restore();
    }

    private static double transientFailures() {
        String metrics = io.restassured.RestAssured.given()
                .get(io.quarkus.test.common.http.TestHTTPResourceManager.getManagementUri() + "/metrics").then().statusCode(200).extract().asString();
        return metrics.lines().filter(line -> line.startsWith("umbra_inbox_failures_total{") && line.contains("consumer=\"billing\"")
                        && line.contains("fault=\"transient\""))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    @Test
    void eventsThatArriveDuringAnOutageAreAppliedOnceWhenItEnds() {
        gateway.recover();
        UUID user = UUID.randomUUID();
        UUID key = newKey(user);
        List<String> guilds = new ArrayList<>();
        List<UUID> subscriptions = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String guild = Snowflakes.random();
            guilds.add(guild);
            subscriptions.add(UUID.fromString(subscribe(user, guild, "PRO", key).then().statusCode(201).extract().path("id")));
        }

        // the application's other test classes count transient failures too: this outage's own are the rise
        double failedBefore = transientFailures();
        link.cut();
        List<BotKicked> kicks = guilds.stream().map(BotKicked::new).toList();
        OutboxRecords.publishAll(kicks, Instant.now());
        OutboxRecords.publishAll(kicks, Instant.now());
        UUID back = OutboxRecords.publish(new BotInstalled(guilds.get(1), Snowflakes.random()), Instant.now());
        UUID last = OutboxRecords.publish(new GuildDeleted(guilds.get(0)), Instant.now());
        // the inbox meets the outage and waits it out
        await().atMost(WAIT).until(() -> transientFailures() > failedBefore);
        link.restore();

        await().atMost(WAIT).until(() -> db.count("select count(*) from processed_event where event_id = any(array[?, ?]::uuid[])", last, back) == 2);
        await().atMost(WAIT).until(() -> db.count("select count(*) from subscription where id = any(string_to_array(?, ',')::uuid[]) and status = 'SUSPENDED'",
                String.join(",", subscriptions.subList(2, 4).stream().map(UUID::toString).toList())) == 2);
        assertThat(db.text("select status from subscription where id = ?", subscriptions.get(0))).isEqualTo("CANCELED");
        assertThat(db.text("select status from subscription where id = ?", subscriptions.get(1))).isEqualTo("ACTIVE");
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> eventTypes(topic, subscriptions.get(0).toString()).size() >= 3
                    && eventTypes(topic, subscriptions.get(1).toString()).size() >= 3
                    && subscriptions.subList(2, 4).stream().allMatch(id -> eventTypes(topic, id.toString()).size() >= 2));
            assertThat(eventTypes(topic, subscriptions.get(0).toString()))
                    .containsExactly("SubscriptionStarted", "SubscriptionSuspended", "SubscriptionCanceled");
            assertThat(eventTypes(topic, subscriptions.get(1).toString()))
                    .containsExactly("SubscriptionStarted", "SubscriptionSuspended", "SubscriptionResumed");
            for (UUID id : subscriptions.subList(2, 4)) {
                assertThat(eventTypes(topic, id.toString())).containsExactly("SubscriptionStarted", "SubscriptionSuspended");
            }
        }
    }

    @Test
    void aCardChangeDuringAnOutageIsAnsweredUnavailableAndChangesNothing() {
        gateway.recover();
        UUID user = UUID.randomUUID();
        UUID key = newKey(user);
        UUID other = newKey(user);
        UUID id = UUID.fromString(subscribe(user, Snowflakes.random(), "PRO", key).then().statusCode(201).extract().path("id"));

        link.cut();
        payWith(user, id, other).then().statusCode(503).contentType("application/problem+json").header("Retry-After", notNullValue());
        link.restore();

        await().atMost(WAIT).untilAsserted(() -> payWith(user, id, key).then().statusCode(200));
        assertThat(db.text("select billing_key_id::text from subscription where id = ?", id)).isEqualTo(key.toString());
        payWith(user, id, other).then().statusCode(200);
        assertThat(db.text("select billing_key_id::text from subscription where id = ?", id)).isEqualTo(other.toString());
    }
}
