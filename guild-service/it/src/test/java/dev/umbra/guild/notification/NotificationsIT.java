package dev.umbra.guild.notification;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.umbra.devstack.DiscordSandbox;
import dev.umbra.events.billing.PaymentFailed;
import dev.umbra.events.billing.SubscriptionCanceled;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.recovery.AntiNukeActioned;
import dev.umbra.events.recovery.AntiNukeTriggered;
import dev.umbra.platform.workqueue.WorkQueue;
import dev.umbra.platform.workqueue.WorkQueues;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.Metrics;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.http.ContentType;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.faulttolerance.api.CircuitBreakerState;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Events from Kafka to a Discord direct message, through the discord-dm work queue, against devstack's Discord sandbox. */
@QuarkusTest
// poison messages, a refusing Discord and unknown guilds are played on purpose: their items die, and say so
@ExpectedLog(category = "dev.umbra.platform.workqueue.WorkQueue", message = "is dead")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "guild"), @ResourceArg(name = "outbox", value = "guild")})
class NotificationsIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    @InjectDevstack
    Database db;

    @InjectDevstack
    DiscordSandbox discord;
    private String guildId;
    private String owner;

    @Inject
    NotificationDispatcher dispatcher;

    @Inject
    WorkQueues queues;

    @Inject
    CircuitBreakerMaintenance circuits;

    @ConfigProperty(name = "umbra.work-queue.discord-dm.max-attempts")
    int maxAttempts;

    @BeforeEach
    void installAGuild() {
        discord.recover();
        guildId = Snowflakes.random();
        owner = Snowflakes.random();
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"installerUserId\":\"" + owner + "\"}")
                .when().post("/guilds/{id}/installation", guildId).then().statusCode(201);
    }

    @Test
    void flowOnesNotificationReachesTheOwnerOnceEvenWhenItsEventIsDeliveredTwice() {
        UUID subscription = UUID.randomUUID();
        UUID started = UUID.randomUUID();
        SubscriptionStarted event = new SubscriptionStarted(subscription, guildId, "PRO", Instant.now().plus(Duration.ofDays(30)));
        OutboxRecords.publish(event, started, Instant.now());
        OutboxRecords.publish(event, started, Instant.now());
        // A later event of the same subscription: once it is delivered, the copy before it has been handled too.
        UUID failed = OutboxRecords.publish(new PaymentFailed(subscription, UUID.randomUUID(), 1), Instant.now());

        // both items are sent side by side in one round: the later one may finish first
        await().atMost(TIMEOUT).until(() -> "done".equals(status(failed)) && "done".equals(status(started)));
        // Once each; the work queue sends due messages side by side, so their order is not promised.
        assertThat(discord.deliveredTo(owner)).extracting(DiscordSandbox.Delivered::content)
                .containsExactlyInAnyOrder("Your PRO subscription is active. Thank you!",
                        "A payment for your subscription failed (attempt 1). We will try again in 24 hours; check your billing key.");
        assertThat(db.count("select count(*) from work_item where queue = 'discord-dm' and item_key = ?", started.toString())).isOne();
    }

    @Test
    void aDiscordHiccupDelaysTheMessageAndItCatchesUp() {
        // Discord holds the first call past the client's read timeout (the sandbox plays one fault at a time: a 503 set
        // after it would replace it; the outage test below plays 503s)
        discord.hang(1);
        UUID triggered = OutboxRecords.publish(new AntiNukeTriggered(guildId, "mass channel deletion", List.of("323456789012345678")),
                Instant.now());

        await().atMost(TIMEOUT).until(() -> "done".equals(status(triggered)));
        assertThat(attempts(triggered)).isGreaterThan(1);
        assertThat(discord.deliveredTo(owner)).singleElement()
                .extracting(DiscordSandbox.Delivered::content)
                .isEqualTo("Anti-nuke: suspicious activity detected on your server (mass channel deletion).");
        assertThat(column("payload::text", triggered))
                .as("the suspects are people: they stay out of the payload").doesNotContain("323456789012345678");
    }

    @Test
    void aDiscordOutageLongerThanAllTheAttemptsDeadLettersNothingAndEveryMessageGoesOutOnceItIsBack() {
        discord.fail(-1);
        List<UUID> events = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            events.add(OutboxRecords.publish(new AntiNukeActioned(guildId, List.of("outage action " + i)), Instant.now()));
        }

        // Every message has been tried more often than max-attempts allows for failures of its own.
        await().atMost(Duration.ofSeconds(90)).until(() -> events.stream().allMatch(id -> status(id) != null && attempts(id) > maxAttempts));
        assertThat(events).allSatisfy(id -> assertThat(status(id)).isIn("pending", "leased"));
        assertThat(discord.deliveredTo(owner)).isEmpty();

        discord.recover();
        await().atMost(TIMEOUT).until(() -> events.stream().allMatch(id -> "done".equals(status(id))));
        assertThat(discord.deliveredTo(owner)).extracting(DiscordSandbox.Delivered::content)
                .containsExactlyInAnyOrder("Anti-nuke acted on your server: outage action 0", "Anti-nuke acted on your server: outage action 1",
                        "Anti-nuke acted on your server: outage action 2");
    }

    @Test
    void aRateLimitedMessageIsNotTriedAgainBeforeItsRetryAfter() {
        Duration retryAfter = Duration.ofSeconds(3);
        Instant beforeTheCall = Instant.now();
        discord.rateLimit(1, retryAfter);
        UUID actioned = OutboxRecords.publish(new AntiNukeActioned(guildId, List.of("rate limited")), Instant.now());

        await().atMost(TIMEOUT).until(() -> "pending".equals(status(actioned)) && attempts(actioned) == 1);
        Instant nextAttempt = Instant.parse(column("to_char(due_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')", actioned));
        assertThat(nextAttempt).isAfterOrEqualTo(beforeTheCall.plus(retryAfter));
        assertThat(column("last_error", actioned)).contains("429");

        await().atMost(TIMEOUT).until(() -> "done".equals(status(actioned)));
        assertThat(discord.deliveredTo(owner)).singleElement().extracting(DiscordSandbox.Delivered::content)
                .isEqualTo("Anti-nuke acted on your server: rate limited");
    }

    @Test
    void aMessageDiscordRefusesEndsAsADeadLetterAfterItsAttemptsAndCanBeRetried() {
        discord.reject(-1);
        UUID actioned = OutboxRecords.publish(new AntiNukeActioned(guildId, List.of("banned 3 members")), Instant.now());

        await().atMost(TIMEOUT).until(() -> "dead".equals(status(actioned)));
        assertThat(attempts(actioned)).isEqualTo(maxAttempts);
        assertThat(column("last_error", actioned)).isEqualTo("gave up after " + maxAttempts + " attempts: Discord refused the message: 403");
        given().auth().oauth2(Tokens.admin()).when().get("/admin/notifications/dead-letters")
                .then().statusCode(200).body("id", hasItem(actioned.toString()));
        assertThat(discord.deliveredTo(owner)).isEmpty();

        discord.recover();
        given().auth().oauth2(Tokens.admin()).when().post("/admin/notifications/{id}/retry", actioned)
                .then().statusCode(200).body("status", equalTo("pending")).body("attempts", equalTo(0));
        await().atMost(TIMEOUT).until(() -> "done".equals(status(actioned)));
        assertThat(discord.deliveredTo(owner)).singleElement().extracting(DiscordSandbox.Delivered::content)
                .isEqualTo("Anti-nuke acted on your server: banned 3 members");

        given().auth().oauth2(Tokens.admin()).when().post("/admin/notifications/{id}/retry", actioned)
                .then().statusCode(409).contentType("application/problem+json");
        // unknown, or sent long enough ago to be forgotten: the answer says how long a sent one is kept
        given().auth().oauth2(Tokens.admin()).when().post("/admin/notifications/{id}/retry", UUID.randomUUID())
                .then().statusCode(404).contentType("application/problem+json")
                .body("detail", containsString("a sent one is kept for 30 days"));
        given().auth().oauth2(Tokens.bot()).when().get("/admin/notifications/dead-letters").then().statusCode(403);
    }

    @Test
    void messagesDiscordRefusesDoNotOpenTheCircuitForEveryoneElses() {
        discord.reject(-1);
        List<UUID> refused = List.of(OutboxRecords.publish(new AntiNukeActioned(guildId, List.of("refused 1")), Instant.now()),
                OutboxRecords.publish(new AntiNukeActioned(guildId, List.of("refused 2")), Instant.now()));

        // twice max-attempts refusals in a row: were they counted, the breaker (four calls, half failing) would open
        Set<CircuitBreakerState> seen = EnumSet.noneOf(CircuitBreakerState.class);
        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(20)).until(() -> {
            seen.add(circuitState());
            return refused.stream().allMatch(id -> "dead".equals(status(id)));
        });
        assertThat(seen).doesNotContain(CircuitBreakerState.OPEN);

        discord.recover();
        UUID next = OutboxRecords.publish(new AntiNukeActioned(guildId, List.of("delivered")), Instant.now());
        await().atMost(TIMEOUT).until(() -> "done".equals(status(next)));
        assertThat(discord.deliveredTo(owner)).extracting(DiscordSandbox.Delivered::content).containsExactly("Anti-nuke acted on your server: delivered");
    }

    private CircuitBreakerState circuitState() {
        try {
            return circuits.currentState(DiscordMessenger.CIRCUIT);
        } catch (IllegalArgumentException notCalledYet) {
            return CircuitBreakerState.CLOSED;
        }
    }

    @Test
    void aMessageForAGuildWithNobodyToTellIsADeadLetterAtOnce() {
        UUID orphan = OutboxRecords.publish(new AntiNukeActioned(Snowflakes.random(), List.of("none")), Instant.now());

        await().atMost(TIMEOUT).until(() -> "dead".equals(status(orphan)));
        assertThat(column("last_error", orphan)).startsWith("poison: no owner to tell");
        assertThat(attempts(orphan)).isZero();

        // a guild known only by a kick that overtook its install has no owner yet: Discord is not asked to send to nobody
        String unowned = Snowflakes.random();
        given().auth().oauth2(Tokens.bot()).queryParam("occurredAt", Instant.now().toString()).when().delete("/guilds/{id}/installation", unowned)
                .then().statusCode(200);
        UUID ownerless = OutboxRecords.publish(new AntiNukeActioned(unowned, List.of("none")), Instant.now());
        await().atMost(TIMEOUT).until(() -> "dead".equals(status(ownerless)));
        assertThat(column("last_error", ownerless)).startsWith("poison: no owner to tell");
        assertThat(attempts(ownerless)).isZero();
    }

    @Test
    void newsOfAGuildDeletedMeanwhileIsNotSentAndNotADeadLetter() {
        UUID subscription = UUID.randomUUID();
        UUID started = OutboxRecords.publish(new SubscriptionStarted(subscription, guildId, "PRO", Instant.now().plus(Duration.ofDays(30))),
                Instant.now());
        await().atMost(TIMEOUT).until(() -> "done".equals(status(started)));
        given().auth().oauth2(Tokens.bot()).when().delete("/guilds/{id}", guildId).then().statusCode(200);
        // billing cancels the deleted guild's subscription, and says so
        UUID canceled = OutboxRecords.publish(new SubscriptionCanceled(subscription, false), Instant.now());

        await().atMost(TIMEOUT).until(() -> "done".equals(status(canceled)));
        assertThat(attempts(canceled)).isOne();
        assertThat(discord.deliveredTo(owner)).extracting(DiscordSandbox.Delivered::content)
                .containsExactly("Your PRO subscription is active. Thank you!");
    }

    @Test
    void poisonMessagesAreDeadLetteredAtOnceWithTheirReason() throws Throwable {
        UUID unknownTemplate = UUID.randomUUID();
        UUID unrenderable = UUID.randomUUID();
        enqueue(unknownTemplate, message("BotRenamed", JsonNodeFactory.instance.objectNode()));
        enqueue(unrenderable, message("AntiNukeActioned", JsonNodeFactory.instance.textNode("not an object")));

        await().atMost(TIMEOUT).until(() -> "dead".equals(status(unknownTemplate)) && "dead".equals(status(unrenderable)));
        assertThat(column("last_error", unknownTemplate)).isEqualTo("poison: no template for BotRenamed");
        assertThat(column("last_error", unrenderable)).startsWith("poison: the parameters of a AntiNukeActioned message are not an object");
        assertThat(attempts(unknownTemplate) + attempts(unrenderable)).isZero();
        assertThat(discord.deliveredTo(owner)).isEmpty();
    }

    @Test
    void dispatchersRacingForTheSameRowsSendEachMessageOnce() throws Exception {
        // Discord away while the messages are put in line, so that none is sent before the race; then parked an hour ahead
        discord.fail(-1);
        List<UUID> events = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            events.add(OutboxRecords.publish(new AntiNukeActioned(guildId, List.of("action " + i)), Instant.now()));
        }
        String keys = String.join(",", events.stream().map(UUID::toString).toList());
        await().atMost(TIMEOUT).until(() -> {
            db.execute("update work_item set due_at = now() + interval '1 hour', ready_at = now() + interval '1 hour' "
                    + "where queue = 'discord-dm' and status = 'pending' and item_key = any(string_to_array(?, ','))", keys);
            return db.count("select count(*) from work_item where queue = 'discord-dm' and status = 'pending' "
                    + "and due_at > now() + interval '30 minutes' and item_key = any(string_to_array(?, ','))", keys) == events.size();
        });
        discord.recover();
        circuits.resetAll();

        // all due at once, and two more dispatchers besides the scheduled one claiming them at the same moment
        db.execute("update work_item set due_at = now(), ready_at = now() where queue = 'discord-dm' and item_key = any(string_to_array(?, ','))", keys);
        CompletableFuture<Integer> one = CompletableFuture.supplyAsync(this::dispatchUntilIdle);
        CompletableFuture<Integer> other = CompletableFuture.supplyAsync(this::dispatchUntilIdle);
        assertThat(one.get() + other.get()).as("messages the two racing dispatchers claimed").isPositive();
        await().atMost(TIMEOUT).until(() -> events.stream().allMatch(id -> "done".equals(status(id))));

        List<String> nonces = events.stream().map(DiscordMessenger::nonce).toList();
        assertThat(discord.postedNonces()).filteredOn(nonces::contains).hasSize(events.size()).doesNotHaveDuplicates();
        assertThat(discord.deliveredTo(owner)).hasSize(events.size());
    }

    @Test
    void theBacklogAndTheAgeOfTheOldestMessageAreMeasured() {
        await().atMost(TIMEOUT).until(() -> backlog() == 0);
        discord.fail(-1);
        UUID waiting = OutboxRecords.publish(new AntiNukeActioned(guildId, List.of("measured")), Instant.now());

        await().atMost(TIMEOUT).until(() -> backlog() == 1 && gauge("umbra_work_queue_oldest_ready_seconds", "") >= 2);

        discord.recover();
        await().atMost(TIMEOUT).until(() -> "done".equals(status(waiting)));
        await().atMost(TIMEOUT).until(() -> backlog() == 0 && gauge("umbra_work_queue_oldest_ready_seconds", "") == 0);
    }

    private int dispatchUntilIdle() {
        WorkQueue queue = queues.queue(NotificationDispatcher.QUEUE);
        int total = 0;
        try {
            int claimed;
            do {
                claimed = VertxContextSupport.subscribeAndAwait(() -> queue.runOnce(dispatcher));
                total += claimed;
            } while (claimed > 0);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
        return total;
    }

    private ObjectNode message(String eventType, com.fasterxml.jackson.databind.JsonNode params) {
        ObjectNode payload = JsonNodeFactory.instance.objectNode();
        payload.put("event_type", eventType).put("aggregate_type", "guild").put("aggregate_id", guildId).put("guild_id", guildId);
        payload.set("params", params);
        return payload;
    }

    private void enqueue(UUID key, ObjectNode payload) throws Throwable {
        WorkQueue queue = queues.queue(NotificationDispatcher.QUEUE);
        VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(() -> queue.enqueue(key.toString(), payload, Instant.now())));
    }

    /** Messages not yet delivered nor dead: due, waiting for their next attempt, or leased. */
    private static long backlog() {
        return Math.round(gauge("umbra_work_queue_backlog", "state=\"due\"") + gauge("umbra_work_queue_backlog", "state=\"waiting\"")
                + gauge("umbra_work_queue_backlog", "state=\"leased\""));
    }

    private static double gauge(String name, String label) {
        double value = Metrics.scrape().sum(name, "queue=\"discord-dm\"", label);
        if (Double.isNaN(value)) {
            throw new AssertionError("no " + name + "{" + label + "} for discord-dm in /q/metrics");
        }
        return value;
    }

    private String status(UUID id) {
        return db.count("select count(*) from work_item where queue = 'discord-dm' and item_key = ?", id.toString()) == 0 ? null
                : column("status", id);
    }

    private long attempts(UUID id) {
        return Long.parseLong(column("attempts", id));
    }

    private String column(String expression, UUID id) {
        return db.text("select " + expression + " from work_item where queue = 'discord-dm' and item_key = ?", id.toString());
    }
}
