package dev.umbra.guild.notification;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.DiscordSandbox;
import dev.umbra.events.billing.PaymentFailed;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.recovery.AntiNukeActioned;
import dev.umbra.events.recovery.AntiNukeTriggered;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Events from Kafka to a Discord direct message, through the integration outbox and the dispatcher, against devstack's Discord sandbox. */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "guild"))
class NotificationsIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Database DB = Database.of("guild");

    private final DiscordSandbox discord = Devstack.shared().discord();
    private String guildId;
    private String owner;

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

        await().atMost(TIMEOUT).until(() -> "completed".equals(status(failed)));
        assertThat(status(started)).isEqualTo("completed");
        assertThat(discord.deliveredTo(owner)).extracting(DiscordSandbox.Delivered::content)
                .containsExactly("Your PRO subscription is active. Thank you!",
                        "A payment for your subscription failed (attempt 1). We will try again in 24 hours; check your billing key.");
        assertThat(DB.count("select count(*) from integration_outbox where outbox_id = ?::uuid", started.toString())).isOne();
    }

    @Test
    void aDiscordOutageDelaysTheMessageAndItCatchesUp() {
        discord.hang(1);
        discord.fail(1);
        UUID triggered = OutboxRecords.publish(new AntiNukeTriggered(guildId, "mass channel deletion", List.of("323456789012345678")),
                Instant.now());

        await().atMost(TIMEOUT).until(() -> "completed".equals(status(triggered)));
        assertThat(DB.count("select attempts from integration_outbox where outbox_id = ?::uuid", triggered.toString())).isGreaterThan(1);
        assertThat(discord.deliveredTo(owner)).singleElement()
                .extracting(DiscordSandbox.Delivered::content)
                .isEqualTo("Anti-nuke: suspicious activity detected on your server (mass channel deletion).");
        assertThat(DB.text("select payload::text from integration_outbox where outbox_id = ?::uuid", triggered.toString()))
                .as("the suspects are people: they stay out of the payload").doesNotContain("323456789012345678");
    }

    @Test
    void aMessageThatAlwaysFailsEndsAsADeadLetterAndCanBeRetried() {
        discord.fail(-1);
        UUID actioned = OutboxRecords.publish(new AntiNukeActioned(guildId, List.of("banned 3 members")), Instant.now());

        await().atMost(TIMEOUT).until(() -> "dead_letter".equals(status(actioned)));
        given().auth().oauth2(Tokens.admin()).when().get("/admin/notifications/dead-letters")
                .then().statusCode(200).body("outboxId", hasItem(actioned.toString()));
        assertThat(discord.deliveredTo(owner)).isEmpty();

        discord.recover();
        given().auth().oauth2(Tokens.admin()).when().post("/admin/notifications/{id}/retry", actioned)
                .then().statusCode(200).body("status", equalTo("pending")).body("attempts", equalTo(0));
        await().atMost(TIMEOUT).until(() -> "completed".equals(status(actioned)));
        assertThat(discord.deliveredTo(owner)).singleElement().extracting(DiscordSandbox.Delivered::content)
                .isEqualTo("Anti-nuke acted on your server: banned 3 members");

        given().auth().oauth2(Tokens.admin()).when().post("/admin/notifications/{id}/retry", actioned)
                .then().statusCode(409).contentType("application/problem+json");
        given().auth().oauth2(Tokens.admin()).when().post("/admin/notifications/{id}/retry", UUID.randomUUID())
                .then().statusCode(404).contentType("application/problem+json");
        given().auth().oauth2(Tokens.bot()).when().get("/admin/notifications/dead-letters").then().statusCode(403);
    }

    @Test
    void aMessageForAGuildWithNobodyToTellIsADeadLetterAtOnce() {
        UUID orphan = OutboxRecords.publish(new AntiNukeActioned(Snowflakes.random(), List.of("none")), Instant.now());

        await().atMost(TIMEOUT).until(() -> "dead_letter".equals(status(orphan)));
        assertThat(DB.text("select last_error from integration_outbox where outbox_id = ?::uuid", orphan.toString()))
                .contains("no owner to tell");
    }

    @Test
    void dispatchersRacingForTheSameRowsSendEachMessageOnce() throws Exception {
        List<UUID> events = new java.util.ArrayList<>();
        for (int i = 0; i < 30; i++) {
            events.add(OutboxRecords.publish(new AntiNukeActioned(guildId, List.of("action " + i)), Instant.now()));
        }
        await().atMost(TIMEOUT).until(() -> DB.count("select count(*) from integration_outbox where outbox_id in ("
                + String.join(",", java.util.Collections.nCopies(events.size(), "?::uuid")) + ")", events.stream().map(UUID::toString).toArray()) == events.size());

        // Two more dispatchers besides the scheduled one, all claiming at once.
        var one = java.util.concurrent.CompletableFuture.supplyAsync(this::dispatchUntilIdle);
        var other = java.util.concurrent.CompletableFuture.supplyAsync(this::dispatchUntilIdle);
        one.get();
        other.get();
        await().atMost(TIMEOUT).until(() -> events.stream().allMatch(id -> "completed".equals(status(id))));

        List<String> nonces = events.stream().map(DiscordMessenger::nonce).toList();
        assertThat(discord.postedNonces()).filteredOn(nonces::contains).hasSize(events.size()).doesNotHaveDuplicates();
        assertThat(discord.deliveredTo(owner)).hasSize(events.size());
    }

    @jakarta.inject.Inject
    NotificationDispatcher dispatcher;

    private int dispatchUntilIdle() {
        int total = 0;
        try {
            int claimed;
            do {
                claimed = io.quarkus.vertx.VertxContextSupport.subscribeAndAwait(() -> dispatcher.dispatchOnce());
                total += claimed;
            } while (claimed > 0);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
        return total;
    }

    @Test
    void theBacklogIsMeasured() {
        String metrics = given().when().get(io.quarkus.test.common.http.TestHTTPResourceManager.getManagementUri() + "/metrics").then().statusCode(200).extract().asString();
        assertThat(metrics).contains("umbra_notifications_backlog{status=\"completed\"}", "umbra_notifications_oldest_pending_seconds");
    }

    private static String status(UUID outboxId) {
        return DB.count("select count(*) from integration_outbox where outbox_id = ?::uuid", outboxId.toString()) == 0 ? null
                : DB.text("select status from integration_outbox where outbox_id = ?::uuid", outboxId.toString());
    }
}
