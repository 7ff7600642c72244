package dev.umbra.billing.subscription;

import static dev.umbra.billing.BillingFixtures.eventTypes;
import static dev.umbra.billing.BillingFixtures.newKey;
import static dev.umbra.billing.BillingFixtures.subscribe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.umbra.devstack.Devstack;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.events.guild.GuildDeleted;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
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

/** The database goes away while guild events arrive: once it is back, each is applied exactly once, with one event each. */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.platform.inbox.Inbox", message = "waits at")
@ExpectedLog(category = "dev.umbra.platform.workqueue.WorkQueues", message = "round failed")
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "billing"))
class ConsumerDatabaseOutageIT {

    private static final Database DB = Database.of("billing");
    private static final Duration WAIT = Duration.ofSeconds(90);

    private final TcpProxy link = DevstackResource.postgresProxy();

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
        Devstack.shared().streamOutbox("billing", "billing");
        Devstack.shared().paymentGateway().recover();
        UUID user = UUID.randomUUID();
        UUID key = newKey(user);
        List<String> guilds = new ArrayList<>();
        List<UUID> subscriptions = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String guild = Snowflakes.random();
            guilds.add(guild);
            subscriptions.add(UUID.fromString(subscribe(user, guild, "PRO", key).then().statusCode(201).extract().path("id")));
        }

        link.cut();
        List<BotKicked> kicks = guilds.stream().map(BotKicked::new).toList();
        OutboxRecords.publishAll(kicks, Instant.now());
        OutboxRecords.publishAll(kicks, Instant.now());
        UUID last = OutboxRecords.publish(new GuildDeleted(guilds.get(0)), Instant.now());
        // the inbox meets the outage and waits it out
        await().atMost(WAIT).until(() -> transientFailures() > 0);
        link.restore();

        await().atMost(WAIT).until(() -> DB.count("select count(*) from processed_event where event_id = ?", last) == 1);
        await().atMost(WAIT).until(() -> DB.count("select count(*) from subscription where id = any(string_to_array(?, ',')::uuid[]) and status = 'SUSPENDED'",
                String.join(",", subscriptions.subList(1, 4).stream().map(UUID::toString).toList())) == 3);
        assertThat(DB.text("select status from subscription where id = ?", subscriptions.get(0))).isEqualTo("CANCELED");
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> eventTypes(topic, subscriptions.get(0).toString()).size() >= 3
                    && subscriptions.subList(1, 4).stream().allMatch(id -> eventTypes(topic, id.toString()).size() >= 2));
            assertThat(eventTypes(topic, subscriptions.get(0).toString()))
                    .containsExactly("SubscriptionStarted", "SubscriptionSuspended", "SubscriptionCanceled");
            for (UUID id : subscriptions.subList(1, 4)) {
                assertThat(eventTypes(topic, id.toString())).containsExactly("SubscriptionStarted", "SubscriptionSuspended");
            }
        }
    }
}
