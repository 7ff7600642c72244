package dev.umbra.billing.subscription;

import static dev.umbra.billing.BillingFixtures.eventTypes;
import static dev.umbra.billing.BillingFixtures.ofAggregate;
import static dev.umbra.billing.BillingFixtures.subscribe;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.notNullValue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.umbra.billing.PayingUserTest;
import dev.umbra.billing.billingkey.BillingKeyCipher;
import dev.umbra.billing.billingkey.GatewayBillingKey;
import dev.umbra.billing.payment.Payment;
import dev.umbra.billing.payment.PaymentOutcomes;
import dev.umbra.billing.payment.StrayChargeReturns;
import dev.umbra.devstack.PaymentGatewaySandbox.Charge;
import dev.umbra.devstack.PaymentGatewaySandbox.Status;
import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.Concurrently;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InboxProbe;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Metrics;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Subscribing, the first charge and its every outcome, cancels and plan changes, against devstack and
 * the gateway sandbox, whose own record of charges is what "charged once" is checked against.
 */
@QuarkusTest
// gateway faults played on purpose: its guard reports each retry at WARN
@ExpectedLog(category = "dev.umbra.billing.gateway.GatewayGuards")
// a gateway that took another amount than asked, played on purpose
@ExpectedLog(category = "dev.umbra.billing.payment.PaymentSettlement", message = "was asked; failed, the charge is to be given back")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
class SubscriptionsIT extends PayingUserTest {

    @Inject
    BillingKeyCipher cipher;

    @Inject
    PaymentOutcomes outcomes;

    @InjectDevstack
    InboxProbe inbox;

    @Inject
    StrayChargeReturns returns;

    @TestHTTPResource("/webhooks/payment-gateway")
    URL webhook;

    @Test
    void aPaidFirstChargeStartsTheSubscriptionWithItsPeriodEnd() throws Exception {
        String guild = Snowflakes.random();
        Response created = subscribe(user, guild, "PRO", key);
        created.then().statusCode(201).body("status", equalTo("ACTIVE")).body("planCode", equalTo("PRO"))
                .body("periodEnd", notNullValue());
        UUID id = UUID.fromString(created.path("id"));
        Instant start = Instant.parse(created.path("periodStart"));
        Instant end = Instant.parse(created.path("periodEnd"));
        assertThat(end).isEqualTo(start.atZone(ZoneOffset.UTC).plusMonths(1).toInstant());

        assertThat(chargesOf(id)).singleElement().satisfies(charge -> {
            assertThat(charge.amount()).isEqualTo(9_900);
            assertThat(charge.idempotencyKey()).isEqualTo(ChargeKeys.periodCharge(id, 0, 1));
            assertThat(charge.status()).isEqualTo(PaymentGatewaySandbox.Status.DONE);
        });
        assertThat(db.text("select status || ':' || paid_amount from payment where subscription_id = ?", id)).isEqualTo("SUCCEEDED:9900");
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> !ofAggregate(topic, id.toString()).isEmpty());
            JsonNode started = payload(ofAggregate(topic, id.toString()).get(0));
            assertThat(eventTypes(topic, id.toString())).containsExactly("SubscriptionStarted");
            assertThat(started.path("guild_id").asText()).isEqualTo(guild);
            assertThat(started.path("plan_code").asText()).isEqualTo("PRO");
            assertThat(Instant.parse(started.path("period_end").asText())).isEqualTo(end);
        }
        given().auth().oauth2(Tokens.user(user.toString())).when().get("/subscriptions/{id}", id).then().statusCode(200)
                .body("status", equalTo("ACTIVE"));
        given().auth().oauth2(Tokens.bot()).when().get("/guilds/{guildId}/subscriptions", guild).then().statusCode(200)
                .body("$", hasSize(1)).body("[0].id", equalTo(id.toString()));
        given().auth().oauth2(Tokens.user(user.toString())).when().get("/users/{userId}/subscriptions", user).then().statusCode(200)
                .body("$", hasSize(1));
    }

    @Test
    void aDeclinedFirstChargeIsA402AndLeavesNoLiveSubscription() {
        String guild = Snowflakes.random();
        double declinedBefore = Metrics.scrape().sum("umbra_billing_payment_attempts_total", "outcome=\"declined\"");
        double succeededBefore = Metrics.scrape().sum("umbra_billing_payment_attempts_total", "outcome=\"succeeded\"");
        gateway.decline(1);
        subscribe(user, guild, "PRO", key).then().statusCode(402).contentType("application/problem+json");
        assertThat(Metrics.scrape().sum("umbra_billing_payment_attempts_total", "outcome=\"declined\""))
                .isGreaterThanOrEqualTo((Double.isNaN(declinedBefore) ? 0 : declinedBefore) + 1);

        assertThat(db.text("select status from subscription where guild_id = ?", guild)).isEqualTo("CANCELED");
        assertThat(db.text("select p.status from payment p join subscription s on s.id = p.subscription_id where s.guild_id = ?", guild))
                .isEqualTo("FAILED");
        // the guild may subscribe again, and only that subscription is ever announced
        UUID again = UUID.fromString(subscribe(user, guild, "PRO", key).then().statusCode(201).extract().path("id"));
        assertThat(Metrics.scrape().sum("umbra_billing_payment_attempts_total", "outcome=\"succeeded\""))
                .isGreaterThanOrEqualTo((Double.isNaN(succeededBefore) ? 0 : succeededBefore) + 1);
        UUID canceled = UUID.fromString(db.text("select id::text from subscription where guild_id = ? and status = 'CANCELED'", guild));
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> !ofAggregate(topic, again.toString()).isEmpty());
            // Debezium streams the database's commits in order: what the canceled one could have published came before, on
            // whichever partition; every partition is read to its end
            assertThat(topic.seenToEnd()).filteredOn(r -> canceled.toString().equals(r.key())).isEmpty();
        }
    }

    @Test
    void aFirstChargeTheGatewayAnswersDoneForAnotherAmountIsNotTakenAsPaidAndItsMoneyIsWatchedToBeGivenBack() {
        String guild = Snowflakes.random();
        // only the charge's own answer tells: no callback comes to settle it first
        gateway.loseCallbacks(1);
        gateway.chargeOtherAmount(1, 100);

        subscribe(user, guild, "PRO", key).then().statusCode(502).contentType("application/problem+json")
                .body("detail", containsString("given back"));

        assertThat(db.text("select status from subscription where guild_id = ?", guild)).isEqualTo("CANCELED");
        String payment = db.text("select p.id::text from payment p join subscription s on s.id = p.subscription_id where s.guild_id = ?", guild);
        assertThat(db.text("select status from payment where id = ?::uuid", payment)).isEqualTo("FAILED");
        assertThat(db.text("select failure_message from payment where id = ?::uuid", payment)).startsWith("AMOUNT_MISMATCH");
        assertThat(db.count("select count(*) from stray_charge where payment_id = ?::uuid", payment)).isOne();
    }

    @Test
    void aChargeTheGatewayRefusesIsA422AndCancelsTheAttempt() {
        String guild = Snowflakes.random();
        // the stored key now decrypts to a billing key the gateway never issued
        String forged = cipher.encrypt(new GatewayBillingKey("bk_never_issued"), key);
        db.text("update billing_key set encrypted_key = ? where id = ? returning id::text", forged, key);

        subscribe(user, guild, "PRO", key).then().statusCode(422).contentType("application/problem+json");
        assertThat(db.text("select status from subscription where guild_id = ?", guild)).isEqualTo("CANCELED");
        assertThat(gateway.charges().stream().filter(c -> c.billingKey().equals("bk_never_issued"))).isEmpty();
    }

    @Test
    void aGatewayThatSurelyGotNothingIsA502WithRetryAfterAndNothingIsCharged() {
        String guild = Snowflakes.random();
        gateway.refuseConnections();
        subscribe(user, guild, "PRO", key).then().statusCode(502).contentType("application/problem+json")
                .header("Retry-After", matchesPattern("\\d+"));
        gateway.recover();

        UUID id = UUID.fromString(db.text("select id::text from subscription where guild_id = ?", guild));
        assertThat(db.text("select status from subscription where id = ?", id)).isEqualTo("CANCELED");
        assertThat(db.text("select status from payment where subscription_id = ?", id)).isEqualTo("FAILED");
        assertThat(chargesOf(id)).isEmpty();
    }

    @Test
    void anUncertainChargeIsA202PendingChargedOnceAndSettledByWhoeverSettlesIt() throws Exception {
        String guild = Snowflakes.random();
        gateway.resetAfterCharge(1);
        Response pending = subscribe(user, guild, "PRO", key);
        pending.then().statusCode(202).body("status", equalTo("PENDING"));
        UUID id = UUID.fromString(pending.path("id"));
        assertThat(chargesOf(id)).hasSize(1);
        assertThat(db.text("select status from payment where subscription_id = ?", id)).isEqualTo("IN_PROGRESS");

        // what the callback or the reconciliation job does: settle the payment and tell the subscription
        UUID paymentId = UUID.fromString(db.text("select id::text from payment where subscription_id = ?", id));
        String paymentKey = chargesOf(id).get(0).paymentKey();
        settle(paymentId, paymentKey, true);

        given().auth().oauth2(Tokens.bot()).when().get("/subscriptions/{id}", id).then().statusCode(200).body("status", equalTo("ACTIVE"));
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> !ofAggregate(topic, id.toString()).isEmpty());
            assertThat(eventTypes(topic, id.toString())).containsExactly("SubscriptionStarted");
        }
    }

    @Test
    void aFirstChargeTheGatewayCarriedOutWhileAnsweringThatItDidNothingIsWatchedAndGivenBack() throws Throwable {
        String guild = Snowflakes.random();
        // the gateway takes the money, then answers 500 (its contract's "nothing was done") to every try, and calls nobody back
        gateway.loseCallbacks(Integer.MAX_VALUE);
        gateway.failAfterChargeOf(user.toString(), 500);
        subscribe(user, guild, "PRO", key).then().statusCode(502).contentType("application/problem+json");
        UUID id = UUID.fromString(db.text("select id::text from subscription where guild_id = ?", guild));
        assertThat(db.text("select status from subscription where id = ?", id)).isEqualTo("CANCELED");
        assertThat(chargesOf(id)).filteredOn(Charge::tookMoney).hasSize(1);
        String stray = "select status from stray_charge where payment_id = (select id from payment where subscription_id = ?)";
        assertThat(db.text(stray, id)).as("failed on the gateway's word alone: watched").isEqualTo("WATCHING");

        gateway.recover();
        VertxContextSupport.subscribeAndAwait(() -> returns.run());

        assertThat(db.text(stray, id)).isEqualTo("RETURNED");
        assertThat(gateway.cancelsOf(chargesOf(id).get(0).paymentKey())).singleElement()
                .satisfies(cancel -> assertThat(cancel.amount()).isEqualTo(9_900));
    }

    @Test
    void aFirstChargeItsCallbackPaidBeforeTheGatewayAnswered500IsKeptAndNeverGivenBack() throws Throwable {
        String guild = Snowflakes.random();
        // the gateway takes the money and calls back at once, then answers 500 to every try, the first one a second late:
        // the callback has paid the payment by the time the answer comes
        gateway.answerLate(1, Duration.ofSeconds(1));
        gateway.failAfterChargeOf(user.toString(), 500);
        gateway.callbackUrl(webhook.toString());
        try {
            subscribe(user, guild, "PRO", key).then().statusCode(201).body("status", equalTo("ACTIVE"));
        } finally {
            gateway.stopCallingBack();
        }
        UUID id = UUID.fromString(db.text("select id::text from subscription where guild_id = ?", guild));
        assertThat(db.text("select status from payment where subscription_id = ?", id)).isEqualTo("SUCCEEDED");
        assertThat(db.count("select count(*) from stray_charge where payment_id = (select id from payment where subscription_id = ?)", id))
                .as("a payment the books hold as paid is no stray charge").isZero();

        gateway.recover();
        VertxContextSupport.subscribeAndAwait(() -> returns.run());

        String charge = chargesOf(id).get(0).paymentKey();
        assertThat(gateway.cancelsOf(charge)).as("the money the ledger holds stays with us").isEmpty();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> db.count("select coalesce(sum(amount), 0) from ledger_entry where subscription_id = ?", id) == 9_900);
    }

    @Test
    void aBotKickedWhileTheFirstChargeIsPendingStartsTheSubscriptionSuspendedOnceItSettles() {
        String guild = Snowflakes.random();
        UUID id = subscribedPending(guild);

        inbox.awaitProcessed(OutboxRecords.publish(new BotKicked(guild), Instant.now()));
        assertThat(db.text("select status from subscription where id = ?", id)).isEqualTo("PENDING");
        assertThat(db.text("select suspensions from subscription where id = ?", id)).isEqualTo("BOT_KICKED");

        settle(UUID.fromString(db.text("select id::text from payment where subscription_id = ?", id)), chargesOf(id).get(0).paymentKey(), true);
        given().auth().oauth2(Tokens.bot()).when().get("/subscriptions/{id}", id).then().statusCode(200)
                .body("status", equalTo("SUSPENDED")).body("suspensions", contains("BOT_KICKED"));
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> ofAggregate(topic, id.toString()).size() >= 2);
            assertThat(eventTypes(topic, id.toString())).containsExactly("SubscriptionStarted", "SubscriptionSuspended");
        }

        // the bot's return resumes it, as for a subscription kicked while running
        inbox.awaitProcessed(OutboxRecords.publish(new BotInstalled(guild, Snowflakes.random()), Instant.now()));
        assertThat(db.text("select status from subscription where id = ?", id)).isEqualTo("ACTIVE");
    }

    @Test
    void aPendingResultIsA202AndAFailedSettlementCancelsQuietly() {
        String guild = Snowflakes.random();
        UUID id = subscribedPending(guild);
        String paymentKey = chargesOf(id).get(0).paymentKey();
        assertThat(db.text("select external_payment_key from payment where subscription_id = ?", id)).isEqualTo(paymentKey);

        settle(UUID.fromString(db.text("select id::text from payment where subscription_id = ?", id)), paymentKey, false);
        assertThat(db.text("select status from subscription where id = ?", id)).isEqualTo("CANCELED");
        subscribe(user, guild, "PRO", key).then().statusCode(201);
    }

    @Test
    void badRequestsAreProblemsAndStoreNothing() {
        String guild = Snowflakes.random();
        subscribe(user, guild, "GOLD", key).then().statusCode(422).contentType("application/problem+json");
        subscribe(user, guild, "FREE", key).then().statusCode(422).contentType("application/problem+json");
        subscribe(user, guild, "PRO", UUID.randomUUID()).then().statusCode(422).contentType("application/problem+json");
        UUID someoneElse = UUID.randomUUID();
        subscribe(someoneElse, guild, "PRO", key).then().statusCode(422);
        given().auth().oauth2(Tokens.user(someoneElse.toString())).contentType(ContentType.JSON)
                .body("{\"guildId\":\"" + guild + "\",\"userId\":\"" + user + "\",\"planCode\":\"PRO\",\"billingKeyId\":\"" + key + "\"}")
                .when().post("/subscriptions").then().statusCode(403).contentType("application/problem+json");
        for (String body : List.of("{}", "{not json", "{\"guildId\":\"not-a-snowflake\",\"userId\":\"" + user
                + "\",\"planCode\":\"PRO\",\"billingKeyId\":\"" + key + "\"}")) {
            given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body(body).when().post("/subscriptions")
                    .then().statusCode(400).contentType("application/problem+json");
        }
        assertThat(db.count("select count(*) from subscription where guild_id = ?", guild)).isZero();
        assertThat(db.count("select count(*) from payment p join subscription s on s.id = p.subscription_id where s.user_id = ?", user)).isZero();
    }

    @Test
    void concurrentSubscribesOfOneGuildChargeOnceAndTheRestAre409() throws Exception {
        String guild = Snowflakes.random();
        List<Integer> statuses = Concurrently.run(6, i -> subscribe(user, guild, "PRO", key).statusCode());

        assertThat(statuses).containsOnlyOnce(201).containsOnly(201, 409);
        assertThat(db.count("select count(*) from subscription where guild_id = ?", guild)).isOne();
        UUID id = UUID.fromString(db.text("select id::text from subscription where guild_id = ?", guild));
        assertThat(chargesOf(id)).hasSize(1);
        subscribe(user, guild, "PREMIUM", key).then().statusCode(409).contentType("application/problem+json");
    }

    @Test
    void cancelNowOrAtPeriodEndOnlyByTheOwnerOrTheBot() {
        UUID now = active("PRO");
        UUID later = active("PRO");
        given().auth().oauth2(Tokens.user(UUID.randomUUID().toString())).when().delete("/subscriptions/{id}", now)
                .then().statusCode(403).contentType("application/problem+json");
        given().auth().oauth2(Tokens.user(user.toString())).when().delete("/subscriptions/{id}?at=tomorrow", now)
                .then().statusCode(400).contentType("application/problem+json");

        given().auth().oauth2(Tokens.user(user.toString())).when().delete("/subscriptions/{id}", now)
                .then().statusCode(200).body("status", equalTo("CANCELED"));
        given().auth().oauth2(Tokens.bot()).when().delete("/subscriptions/{id}?at=period-end", later)
                .then().statusCode(200).body("status", equalTo("ACTIVE")).body("cancelAtPeriodEnd", equalTo(true));
        given().auth().oauth2(Tokens.bot()).when().delete("/subscriptions/{id}?at=period-end", later).then().statusCode(200);

        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> eventTypes(topic, now.toString()).size() == 2 && eventTypes(topic, later.toString()).size() == 2);
            assertThat(eventTypes(topic, now.toString())).containsExactly("SubscriptionStarted", "SubscriptionCanceled");
            assertThat(eventTypes(topic, later.toString())).containsExactly("SubscriptionStarted", "SubscriptionCanceled");
            assertThat(payload(ofAggregate(topic, later.toString()).get(1)).path("cancel_at_period_end").asBoolean()).isTrue();
        }
    }

    @Test
    void anUpgradeChargesTheProratedDifferenceAndADowngradeWaitsForThePeriodEnd() {
        UUID id = active("PRO");
        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body("{\"planCode\":\"PREMIUM\"}")
                .when().put("/subscriptions/{id}/plan", id).then().statusCode(200).body("planCode", equalTo("PREMIUM"));
        Charge upgrade = chargesOf(id).get(1);
        assertThat(upgrade.idempotencyKey()).isEqualTo(ChargeKeys.upgradeCharge(id, 0, "PREMIUM", 1));
        assertThat(upgrade.amount()).isBetween(1L, 10_000L);
        assertThat(db.text("select purpose || ':' || status from payment where subscription_id = ? and period = 0 and purpose <> 'PERIOD'", id))
                .isEqualTo("UPGRADE_PREMIUM:SUCCEEDED");

        String periodEnd = given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body("{\"planCode\":\"PRO\"}")
                .when().put("/subscriptions/{id}/plan", id).then().statusCode(200)
                .body("planCode", equalTo("PREMIUM")).body("pendingPlanCode", equalTo("PRO")).extract().path("periodEnd");
        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body("{\"planCode\":\"GOLD\"}")
                .when().put("/subscriptions/{id}/plan", id).then().statusCode(422).contentType("application/problem+json");
        assertThat(chargesOf(id)).hasSize(2);

        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> eventTypes(topic, id.toString()).size() == 3);
            assertThat(eventTypes(topic, id.toString())).containsExactly("SubscriptionStarted", "PlanUpgraded", "PlanDowngraded");
            assertThat(Instant.parse(payload(ofAggregate(topic, id.toString()).get(2)).path("effective_at").asText()))
                    .isEqualTo(Instant.parse(periodEnd));
        }
    }

    @Test
    void anUpgradeDeclinedOnceIsChargedAnewWhenTheUserTriesAgain() {
        UUID id = active("PRO");
        gateway.decline(1);
        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body("{\"planCode\":\"PREMIUM\"}")
                .when().put("/subscriptions/{id}/plan", id).then().statusCode(402).contentType("application/problem+json");
        // a gateway answers a key once and for good, a decline included: the second try is an attempt with a key of its own
        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body("{\"planCode\":\"PREMIUM\"}")
                .when().put("/subscriptions/{id}/plan", id).then().statusCode(200).body("planCode", equalTo("PREMIUM"));

        assertThat(chargesOf(id).subList(1, 3)).extracting(Charge::idempotencyKey, Charge::status).containsExactly(
                tuple(ChargeKeys.upgradeCharge(id, 0, "PREMIUM", 1), Status.ABORTED),
                tuple(ChargeKeys.upgradeCharge(id, 0, "PREMIUM", 2), Status.DONE));
        assertThat(db.text("select string_agg(status, ',' order by attempted_at) from payment where subscription_id = ? and purpose = 'UPGRADE_PREMIUM'", id))
                .isEqualTo("FAILED,SUCCEEDED");
    }

    @Test
    void concurrentCancelsEndTheSubscriptionOnceWithOneEvent() throws Exception {
        UUID id = active("PRO");
        List<Integer> statuses = Concurrently.run(6, i -> given().auth().oauth2(Tokens.user(user.toString()))
                .when().delete(i % 2 == 0 ? "/subscriptions/{id}" : "/subscriptions/{id}?at=period-end", id).statusCode());

        // a period-end cancel that comes after the cancel now finds nothing to do; one that comes before is then overtaken
        assertThat(statuses).containsOnly(200);
        assertThat(db.text("select status from subscription where id = ?", id)).isEqualTo("CANCELED");
        UUID marker = active("PRO");
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> !ofAggregate(topic, marker.toString()).isEmpty());
            List<String> events = eventTypes(topic, id.toString());
            assertThat(events.get(0)).isEqualTo("SubscriptionStarted");
            assertThat(events.subList(1, events.size())).containsOnly("SubscriptionCanceled").hasSizeBetween(1, 2);
            assertThat(ofAggregate(topic, id.toString()).stream().skip(1)
                    .filter(r -> !payload(r).path("cancel_at_period_end").asBoolean())).hasSize(1);
        }
    }

    @Test
    void concurrentUpgradesChargeOnce() throws Exception {
        UUID id = active("PRO");
        gateway.answerLate(1, Duration.ofMillis(500));
        List<Integer> statuses = Concurrently.run(4, i -> given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON)
                .body("{\"planCode\":\"PREMIUM\"}").when().put("/subscriptions/{id}/plan", id).statusCode());

        // one charges; the others find it in flight (409) or done (422: PREMIUM is not below PREMIUM)
        assertThat(statuses).containsOnlyOnce(200).allMatch(status -> status == 200 || status == 409 || status == 422);
        assertThat(chargesOf(id).stream().filter(c -> c.idempotencyKey().equals(ChargeKeys.upgradeCharge(id, 0, "PREMIUM", 1)))).hasSize(1);
        assertThat(db.count("select count(*) from payment where subscription_id = ? and purpose = 'UPGRADE_PREMIUM'", id)).isOne();
    }

    @Test
    void chargesAnsweredWhileTheirCallbacksArriveSettleOnceEachWithoutADeadlock() throws Exception {
        long deadlocksBefore = db.count("select deadlocks from pg_stat_database where datname = current_database()");
        // only this test's callbacks in the sandbox's record, all of them to this service
        gateway.reset();
        gateway.callbackUrl(webhook.toString());
        try {
            List<String> guilds = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                guilds.add(Snowflakes.random());
            }
            // every charge's answer and the sandbox's callback for it settle the same payment at about the same instant
            List<Integer> statuses = Concurrently.run(guilds.size(), i -> subscribe(user, guilds.get(i), "PRO", key).statusCode());
            assertThat(statuses).containsOnly(201);
            await().atMost(WAIT).until(() -> gateway.callbacks().size() >= guilds.size());
        } finally {
            gateway.stopCallingBack();
        }

        assertThat(gateway.callbacks()).extracting(PaymentGatewaySandbox.Callback::answer).containsOnly(200);
        assertThat(db.count("select count(*) from subscription where user_id = ? and status = 'ACTIVE' and version = 1", user)).isEqualTo(12);
        assertThat(db.count("select count(*) from payment p join subscription s on s.id = p.subscription_id"
                + " where s.user_id = ? and p.status = 'SUCCEEDED' and p.version = 1", user)).isEqualTo(12);
        assertThat(db.count("select count(*) from invoice i join subscription s on s.id = i.subscription_id where s.user_id = ?", user))
                .isEqualTo(12);
        assertThat(db.count("select deadlocks from pg_stat_database where datname = current_database()")).isEqualTo(deadlocksBefore);
    }

    @Test
    void aDeclinedUpgradeIsA402AndKeepsThePlan() {
        UUID id = active("PRO");
        gateway.decline(1);
        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body("{\"planCode\":\"PREMIUM\"}")
                .when().put("/subscriptions/{id}/plan", id).then().statusCode(402).contentType("application/problem+json");
        given().auth().oauth2(Tokens.bot()).when().get("/subscriptions/{id}", id).then().body("planCode", equalTo("PRO"))
                .body("status", equalTo("ACTIVE"));
    }

    @Test
    void anUpgradeChargedAndGivenBackInAPeriodIsNotChargedAgainInIt() {
        UUID id = active("PRO");
        // as if an upgrade to PREMIUM had been charged in period 0 and given back: it was quoted from a plan the
        // subscription had left by the time it settled (a later catalogue can have two upgrades in flight)
        db.execute("insert into payment (id, subscription_id, period, purpose, order_id, idempotency_key, amount, paid_amount, status, "
                + "external_payment_key, attempted_at, resolved_at, created_at, quoted_from_plan) values (gen_random_uuid(), ?, 0, "
                + "'UPGRADE_PREMIUM', ?, ?, 5000, 5000, 'SUCCEEDED', ?, now(), now(), now(), 'FREE')", id,
                "refused-" + UUID.randomUUID(), "refused-" + UUID.randomUUID(), "pay_refused_" + UUID.randomUUID());
        int charges = chargesOf(id).size();

        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body("{\"planCode\":\"PREMIUM\"}")
                .when().put("/subscriptions/{id}/plan", id).then().statusCode(409).contentType("application/problem+json")
                .body("detail", containsString("next period"));

        // no charge that could never settle (its success would break one_successful_payment): money taken, nothing to show for it
        assertThat(chargesOf(id)).hasSize(charges);
        assertThat(db.count("select count(*) from payment where subscription_id = ? and status = 'IN_PROGRESS'", id)).isZero();
        given().auth().oauth2(Tokens.bot()).when().get("/subscriptions/{id}", id).then().body("planCode", equalTo("PRO"));
    }

    private UUID active(String plan) {
        return UUID.fromString(subscribe(user, Snowflakes.random(), plan, key).then().statusCode(201).extract().path("id"));
    }

    /** PRO subscribed while the gateway keeps the first charge pending: 202, the subscription PENDING. */
    private UUID subscribedPending(String guild) {
        gateway.keepPending(1);
        Response pending = subscribe(user, guild, "PRO", key);
        pending.then().statusCode(202).body("status", equalTo("PENDING"));
        return UUID.fromString(pending.path("id"));
    }

    private void settle(UUID paymentId, String paymentKey, boolean succeeded) {
        try {
            VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(() -> Payment.<Payment>findById(paymentId).chain(payment -> {
                Instant at = Instant.now();
                if (succeeded) {
                    return payment.succeed(paymentKey, payment.amount, at) ? outcomes.succeeded(payment, at) : io.smallrye.mutiny.Uni.createFrom().voidItem();
                }
                return payment.fail(paymentKey, "declined", at) ? outcomes.failed(payment, at) : io.smallrye.mutiny.Uni.createFrom().voidItem();
            })));
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }
}
