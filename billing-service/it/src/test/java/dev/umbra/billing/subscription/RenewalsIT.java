package dev.umbra.billing.subscription;

import static dev.umbra.billing.BillingFixtures.eventTypes;
import static dev.umbra.billing.BillingFixtures.invoicesOf;
import static dev.umbra.billing.BillingFixtures.ofAggregate;
import static dev.umbra.billing.BillingFixtures.subscribe;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.notNullValue;

import dev.umbra.billing.PayingUserTest;
import dev.umbra.billing.clock.MovableClock;
import dev.umbra.billing.invoice.AutomaticRefunds;
import dev.umbra.billing.payment.PaymentReconciliation;
import dev.umbra.devstack.PaymentGatewaySandbox.Cancel;
import dev.umbra.devstack.PaymentGatewaySandbox.Charge;
import dev.umbra.devstack.PaymentGatewaySandbox.Status;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.platform.workqueue.WorkItem;
import dev.umbra.platform.workqueue.WorkQueues;
import dev.umbra.testing.ExpectedLog;
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
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Renewals on the work queue with a moved clock: several scans and workers at once charge a period
 * once (the sandbox's own record says so), and dunning yields exactly the expected events in order.
 */
@QuarkusTest
// gateway faults played on purpose: its guard reports each retry at WARN
@ExpectedLog(category = "dev.umbra.billing.gateway.GatewayGuards")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
class RenewalsIT extends PayingUserTest {

    @Inject
    Renewals renewals;

    @Inject
    WorkQueues queues;

    @Inject
    MovableClock clock;

    @Inject
    PaymentReconciliation reconciliation;

    @Inject
    AutomaticRefunds automaticRefunds;

    @InjectDevstack
    InboxProbe inbox;

    @Test
    void fourFailedRenewalsOneIntervalApartCancelWithExactlyTheseEvents() throws Throwable {
        UUID id = active();
        gateway.declineCustomer(user.toString());

        clock.advance(Duration.ofDays(32));
        for (int failure = 1; failure <= 4; failure++) {
            if (failure > 1) {
                clock.advance(Duration.ofHours(24));
            }
            drain();
            int failures = failure;
            assertThat(db.count("select count(*) from payment where subscription_id = ? and period = 1 and status = 'FAILED'", id))
                    .isEqualTo(failures);
            assertThat(db.text("select status from subscription where id = ?", id)).isEqualTo(failure < 4 ? "PAST_DUE" : "CANCELED");
            // not due again before the interval is over
            drain();
            assertThat(db.count("select count(*) from payment where subscription_id = ? and period = 1", id)).isEqualTo(failures);
        }

        List<Charge> charges = chargesOf(id);
        assertThat(charges).hasSize(5);
        assertThat(charges.subList(1, 5)).allSatisfy(charge -> assertThat(charge.status()).isEqualTo(Status.ABORTED));
        // each retry is an attempt of its own at the gateway: a key is answered once and for good, a decline included
        assertThat(charges.subList(1, 5)).extracting(Charge::idempotencyKey).containsExactly(ChargeKeys.periodCharge(id, 1, 1),
                ChargeKeys.periodCharge(id, 1, 2), ChargeKeys.periodCharge(id, 1, 3), ChargeKeys.periodCharge(id, 1, 4));
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> eventTypes(topic, id.toString()).size() >= 5);
            assertThat(eventTypes(topic, id.toString())).containsExactly("SubscriptionStarted", "PaymentFailed", "PaymentFailed",
                    "PaymentFailed", "PaymentFailedFinal");
            List<Integer> retryCounts = ofAggregate(topic, id.toString()).subList(1, 4).stream()
                    .map(r -> payload(r).path("retry_count").asInt()).toList();
            assertThat(retryCounts).containsExactly(1, 2, 3);
        }
        // four declined renewals: the first charge's invoice and ledger entry only
        assertThat(invoicesOf(id)).hasSize(1);
        assertThat(db.count("select count(*) from ledger_entry where subscription_id = ?", id)).isOne();
        clock.advance(Duration.ofDays(40));
        drain();
        assertThat(chargesOf(id)).hasSize(5);
    }

    @Test
    void aRenewalDeclinedOnceIsChargedAnewOneIntervalLater() throws Throwable {
        UUID id = active();
        // this test's user only: earlier tests' subscriptions fall due under the moved clock too
        gateway.declineCustomer(user.toString());
        clock.advance(Duration.ofDays(32));
        drain();
        assertThat(db.text("select status from subscription where id = ?", id)).isEqualTo("PAST_DUE");

        gateway.recover();
        clock.advance(Duration.ofHours(24));
        drain();
        assertThat(db.text("select status || ':' || paid_through from subscription where id = ?", id)).isEqualTo("ACTIVE:1");
        assertThat(chargesOf(id).subList(1, 3)).extracting(Charge::idempotencyKey, Charge::status).containsExactly(
                tuple(ChargeKeys.periodCharge(id, 1, 1), Status.ABORTED), tuple(ChargeKeys.periodCharge(id, 1, 2), Status.DONE));
    }

    @Test
    void aRenewalTheGatewayCarriedOutWhileAnsweringThatItDidNothingIsSentAgainAsTheSameChargeAndPaidOnce() throws Throwable {
        UUID id = active();
        renewedUnderA500ThatCarriedTheChargeOut(id);
        assertThat(chargesOf(id)).filteredOn(Charge::tookMoney).hasSize(2);

        // the attempt, kept, is sent again as it is once the gateway answers: the same charge, answered again, not a second one
        gateway.recover();
        drainPastBackoffUntil(() -> !"ACTIVE:0".equals(db.text("select status || ':' || paid_through from subscription where id = ?", id)));
        assertThat(db.text("select status || ':' || paid_through from subscription where id = ?", id)).isEqualTo("ACTIVE:1");
        assertThat(chargesOf(id)).filteredOn(Charge::tookMoney).hasSize(2);
        assertThat(db.text("select status from payment where subscription_id = ? and period = 1", id)).isEqualTo("SUCCEEDED");
    }

    @Test
    void aRenewalAttemptStoredByATryThatDiedBeforeSendingItIsSentByTheNextTryAndPaidOnce() throws Throwable {
        UUID id = active();
        clock.advance(Duration.ofDays(32));
        // what a try leaves when its worker dies between the attempt's commit and the charge (or the commit's answer is lost)
        String attemptKey = ChargeKeys.periodCharge(id, 1, 1);
        db.execute("""
                insert into payment (id, subscription_id, period, purpose, order_id, idempotency_key, amount, status, attempted_at, created_at,
                                     kept_for_resend)
                values (?, ?, 1, 'PERIOD', ?, ?, 9900, 'IN_PROGRESS', now(), now(), true)""",
                UUID.randomUUID(), id, "pay-" + UUID.nameUUIDFromBytes(attemptKey.getBytes(StandardCharsets.UTF_8)), attemptKey);

        drain();
        drain();

        assertThat(db.text("select status || ':' || paid_through from subscription where id = ?", id)).isEqualTo("ACTIVE:1");
        assertThat(db.text("select status from payment where subscription_id = ? and period = 1", id)).isEqualTo("SUCCEEDED");
        assertThat(chargesOf(id)).filteredOn(charge -> charge.idempotencyKey().equals(attemptKey)).singleElement()
                .satisfies(charge -> assertThat(charge.amount()).isEqualTo(9_900));
    }

    @Test
    void aRenewalWhoseAnswerWasLostIsNeverSentAgainNotEvenAfterItsSubscriptionChangedButSettledByReconciliation() throws Throwable {
        UUID id = active();
        clock.advance(Duration.ofDays(32));
        String attemptKey = ChargeKeys.periodCharge(id, 1, 1);
        gateway.resetAfterChargeOf(user.toString());
        drain();
        assertThat(db.text("select status from payment where subscription_id = ? and period = 1", id)).isEqualTo("IN_PROGRESS");
        gateway.recover();

        // the subscription changes before reconciliation has settled the charge (a new card, a kick and a return): a new item
        // of the period comes, and so does a try that takes a lease over; neither may send the charge again
        db.execute("update subscription set version = version + 1 where id = ?", id);
        drain();
        clock.advance(Duration.ofMinutes(31));
        drain();
        assertThat(gateway.received()).filteredOn(received -> received.isCharge() && attemptKey.equals(received.idempotencyKey()))
                .as("the period's charge is sent once").hasSize(1);

        VertxContextSupport.subscribeAndAwait(() -> reconciliation.run());
        assertThat(db.text("select status from payment where subscription_id = ? and period = 1", id)).isEqualTo("SUCCEEDED");
        assertThat(db.text("select status || ':' || paid_through from subscription where id = ?", id)).isEqualTo("ACTIVE:1");
        assertThat(chargesOf(id)).filteredOn(Charge::tookMoney).hasSize(2);
    }

    @Test
    void aRenewalCarriedOutUnderA500KeepsItsPriceUntilItIsSentAgainAndIsPaidOnce() throws Throwable {
        UUID id = UUID.fromString(subscribe(user, Snowflakes.random(), "PREMIUM", key).then().statusCode(201).extract().path("id"));
        renewedUnderA500ThatCarriedTheChargeOut(id);

        // a downgrade now would ask the attempt's key for another amount: refused while the attempt is in flight
        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body("{\"planCode\":\"PRO\"}")
                .when().put("/subscriptions/{id}/plan", id).then().statusCode(409).contentType("application/problem+json");
        gateway.recover();
        drainPastBackoffUntil(() -> "ACTIVE:1".equals(db.text("select status || ':' || paid_through from subscription where id = ?", id)));

        assertThat(db.text("select status from payment where subscription_id = ? and period = 1", id)).isEqualTo("SUCCEEDED");
        assertThat(chargesOf(id)).filteredOn(Charge::tookMoney).extracting(Charge::idempotencyKey, Charge::amount)
                .containsExactly(tuple(ChargeKeys.periodCharge(id, 0, 1), 19_900L), tuple(ChargeKeys.periodCharge(id, 1, 1), 19_900L));
        assertThat(db.count("select count(*) from stray_charge where payment_id in (select id from payment where subscription_id = ?)", id)).isZero();
        // and the downgrade is taken once nothing is in flight, from the next period
        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body("{\"planCode\":\"PRO\"}")
                .when().put("/subscriptions/{id}/plan", id).then().statusCode(200);
    }

    @Test
    void aRenewalAnswered500IsNotFailedByReconciliationWhileItsRenewalIsToSendItAgain() throws Throwable {
        UUID id = active();
        clock.advance(Duration.ofDays(32));
        // this user's charges answered 500 and nothing done (earlier tests' subscriptions fall due too, and are charged)
        gateway.failChargesOf(user.toString(), 500);
        drainUntilKept(List.of(id));

        // the gateway, answering again, has nothing for the attempt; its renewal's next try is to send it again: not a failed
        // payment, no dunning
        gateway.recover();
        clock.advance(Duration.ofMinutes(5));
        VertxContextSupport.subscribeAndAwait(() -> reconciliation.run());
        assertThat(db.text("select status from payment where subscription_id = ? and period = 1", id)).isEqualTo("IN_PROGRESS");
        assertThat(db.text("select status from subscription where id = ?", id)).isEqualTo("ACTIVE");

        drainPastBackoffUntil(() -> "ACTIVE:1".equals(db.text("select status || ':' || paid_through from subscription where id = ?", id)));
        assertThat(chargesOf(id)).filteredOn(Charge::tookMoney).extracting(Charge::idempotencyKey)
                .containsExactly(ChargeKeys.periodCharge(id, 0, 1), ChargeKeys.periodCharge(id, 1, 1));
    }

    @Test
    void aRenewalCarriedOutUnderA500WhoseSubscriptionIsCanceledBeforeItIsSentAgainIsSettledAndGivenBack() throws Throwable {
        UUID id = active();
        renewedUnderA500ThatCarriedTheChargeOut(id);

        canceledBeforeTheNextTryThenSettledAndGivenBack(id);
    }

    @Test
    void aRenewalCarriedOutUnderA500WhoseNextTryCannotConnectIsKeptAndGivenBackOnceItsSubscriptionIsCanceled() throws Throwable {
        UUID id = active();
        renewedUnderA500ThatCarriedTheChargeOut(id);

        // the next try cannot reach the gateway: the attempt, which the gateway holds, stays for a later try or reconciliation
        gateway.recover();
        gateway.refuseConnections();
        clock.advance(Duration.ofMinutes(31));
        drain();
        assertThat(db.text("select status from payment where subscription_id = ? and period = 1", id)).isEqualTo("IN_PROGRESS");

        canceledBeforeTheNextTryThenSettledAndGivenBack(id);
    }

    @Test
    void aRenewalAnswered500WhoseGuildLeavesBeforeItIsSentAgainIsRolledBackNotDunnedAndChargedOnceTheGuildIsBack() throws Throwable {
        String guild = Snowflakes.random();
        UUID id = active(guild);
        clock.advance(Duration.ofDays(32));
        gateway.failChargesOf(user.toString(), 500);
        drainUntilKept(List.of(id));

        // the bot is kicked before the renewal's next try, which finds the subscription suspended and sends nothing
        inbox.awaitProcessed(OutboxRecords.publish(new BotKicked(guild), Instant.now()));
        gateway.recover();
        drainPastBackoffUntil(() -> db.count("select count(*) from work_item where queue = ? and item_key like ? and status in ('pending', 'leased')",
                Renewals.QUEUE, id + ":p1:%") == 0);

        // the gateway has nothing for the attempt and no try will send it: it charged nothing and is no failed payment either
        clock.advance(Duration.ofMinutes(5));
        VertxContextSupport.subscribeAndAwait(() -> reconciliation.run());
        assertThat(db.count("select count(*) from payment where subscription_id = ? and period = 1", id)).isZero();
        assertThat(db.text("select status || ':' || failed_attempts from subscription where id = ?", id)).isEqualTo("SUSPENDED:0");

        // back in the same period: charged under the attempt's own key, as soon as the circuit the 500s opened lets it through
        inbox.awaitProcessed(OutboxRecords.publish(new BotInstalled(guild, Snowflakes.random()), Instant.now()));
        drainPastBackoffUntil(() -> "ACTIVE:1".equals(db.text("select status || ':' || paid_through from subscription where id = ?", id)));
        assertThat(chargesOf(id)).filteredOn(Charge::tookMoney).extracting(Charge::idempotencyKey)
                .containsExactly(ChargeKeys.periodCharge(id, 0, 1), ChargeKeys.periodCharge(id, 1, 1));
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> eventTypes(topic, id.toString()).size() >= 4);
            assertThat(eventTypes(topic, id.toString())).containsExactly("SubscriptionStarted", "SubscriptionSuspended", "SubscriptionResumed",
                    "PaymentSucceeded");
        }
    }

    @Test
    void reconciliationAndTheRenewalsTriesAtOnceOnAKeptAttemptChargeThePeriodOnce() throws Throwable {
        List<UUID> subscriptions = active(4);
        clock.advance(Duration.ofDays(32));
        gateway.failChargesOf(user.toString(), 500);
        drainUntilKept(subscriptions);
        gateway.recover();
        // each subscription changes under its kept attempt (as a billing key paid with anew does), and its item, tried again
        // before any scan, finds it changed and ends without sending it
        for (UUID id : subscriptions) {
            db.execute("update subscription set version = version + 1 where id = ?", id);
        }
        clock.advance(Duration.ofMinutes(31));
        while (VertxContextSupport.subscribeAndAwait(() -> renewals.runOnce()) > 0) {
            // rounds until nothing is due
        }

        // reconciliation finds no trace of the attempts while scans put the subscriptions' steps in line and workers send them
        ExecutorService replicas = Executors.newFixedThreadPool(4);
        List<Future<?>> runs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            runs.add(replicas.submit(onVertx(() -> reconciliation.run())));
            runs.add(replicas.submit(() -> {
                try {
                    drain();
                } catch (Throwable e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        for (Future<?> run : runs) {
            run.get();
        }
        replicas.shutdown();
        drainPastBackoffUntil(() -> subscriptions.stream().allMatch(id ->
                "ACTIVE:1".equals(db.text("select status || ':' || paid_through from subscription where id = ?", id))));

        for (UUID id : subscriptions) {
            // a rolled-back attempt leaves no row, a failed one would have spent the period's first attempt
            assertThat(chargesOf(id)).as("charges of %s", id).filteredOn(Charge::tookMoney).extracting(Charge::idempotencyKey)
                    .containsExactly(ChargeKeys.periodCharge(id, 0, 1), ChargeKeys.periodCharge(id, 1, 1));
            assertThat(db.text("select string_agg(status, ',') from payment where subscription_id = ? and period = 1", id)).isEqualTo("SUCCEEDED");
        }
    }

    @Test
    void aRenewalThatFoundItsSubscriptionSuspendedIsDoneOnceTheGuildIsBackInTheSamePeriod() throws Throwable {
        String guild = Snowflakes.random();
        UUID id = active(guild);
        clock.advance(Duration.ofDays(32));
        VertxContextSupport.subscribeAndAwait(() -> renewals.scan());
        // the bot is kicked between the scan and the worker: the worker finds nothing to charge and finishes its item
        inbox.awaitProcessed(OutboxRecords.publish(new BotKicked(guild), Instant.now()));
        drain();
        assertThat(db.count("select count(*) from payment where subscription_id = ? and period = 1", id)).isZero();

        // back within the same period, the same step is due again: a finished item of the old scan must not keep it out
        inbox.awaitProcessed(OutboxRecords.publish(new BotInstalled(guild, Snowflakes.random()), Instant.now()));
        drain();
        assertThat(db.text("select status || ':' || paid_through from subscription where id = ?", id)).isEqualTo("ACTIVE:1");
        assertThat(chargesOf(id)).hasSize(2);
    }

    @Test
    void aPaidRenewalStartsTheNextPeriodAndAnExpiringOneEndsWithoutCharge() throws Throwable {
        UUID renewed = active();
        UUID ending = active();
        given().auth().oauth2(Tokens.bot()).when().delete("/subscriptions/{id}?at=period-end", ending).then().statusCode(200);

        clock.advance(Duration.ofDays(32));
        drain();

        assertThat(db.text("select status || ':' || paid_through from subscription where id = ?", renewed)).isEqualTo("ACTIVE:1");
        assertThat(db.text("select status from subscription where id = ?", ending)).isEqualTo("CANCELED");
        assertThat(chargesOf(renewed)).hasSize(2).last().satisfies(c -> assertThat(c.idempotencyKey()).isEqualTo(ChargeKeys.periodCharge(renewed, 1, 1)));
        assertThat(chargesOf(ending)).hasSize(1);
        // one invoice per paid period, the renewal's for the period that follows the first
        List<Map<String, Object>> invoices = invoicesOf(renewed);
        assertThat(invoices).hasSize(2);
        assertThat(invoices.get(0).get("periodStart")).isEqualTo(invoices.get(1).get("periodEnd"));
        assertThat(invoices).allSatisfy(invoice -> assertThat(invoice.get("total")).isEqualTo(9_900));
        assertThat(invoicesOf(ending)).hasSize(1);
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> eventTypes(topic, renewed.toString()).size() >= 2 && eventTypes(topic, ending.toString()).size() >= 3);
            assertThat(eventTypes(topic, renewed.toString())).containsExactly("SubscriptionStarted", "PaymentSucceeded");
            // canceled at period end when asked, then said again when it ends, so that its license ends then too
            assertThat(eventTypes(topic, ending.toString())).containsExactly("SubscriptionStarted", "SubscriptionCanceled", "SubscriptionCanceled");
            assertThat(ofAggregate(topic, ending.toString()).subList(1, 3)).extracting(r -> payload(r).path("cancel_at_period_end").asBoolean())
                    .containsExactly(true, false);
        }
    }

    @Test
    void scansAndWorkersRunningAtOnceChargeEachPeriodOnce() throws Throwable {
        List<UUID> subscriptions = active(6);
        clock.advance(Duration.ofDays(32));
        // two of the charges lose their answer: they stay in flight and must not be sent again
        gateway.resetAfterCharge(2);

        ExecutorService replicas = Executors.newFixedThreadPool(6);
        List<Future<Integer>> rounds = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            rounds.add(replicas.submit(onVertx(() -> renewals.scan())));
        }
        for (Future<Integer> round : rounds) {
            round.get();
        }
        // three workers claim at once (disjoint items); each claimed item is then handled twice at once, as when a lease is taken over
        List<Future<List<WorkItem>>> claims = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            claims.add(replicas.submit(onVertx(() -> queues.queue(Renewals.QUEUE).claim())));
        }
        List<Future<?>> workers = new ArrayList<>();
        for (Future<List<WorkItem>> claim : claims) {
            for (WorkItem item : claim.get()) {
                // subscriptions of other classes (same database, same moved clock) may be due too: this test races its own
                if (subscriptions.stream().noneMatch(id -> item.key().startsWith(id.toString()))) {
                    continue;
                }
                workers.add(replicas.submit(onVertx(() -> renewals.handle(item))));
                workers.add(replicas.submit(onVertx(() -> renewals.handle(item))));
            }
        }
        for (Future<?> worker : workers) {
            worker.get();
        }
        replicas.shutdown();
        drain();

        for (UUID id : subscriptions) {
            List<Charge> renewalCharges = chargesOf(id).stream()
                    .filter(c -> c.idempotencyKey().equals(ChargeKeys.periodCharge(id, 1, 1))).toList();
            assertThat(renewalCharges).as("charges of period 1 of %s", id).hasSize(1);
            // the sandbox keeps one charge per key whatever it is sent: what was sent is counted from its requests. Two tries of
            // one item at once (a lease taken over the moment it was given, which a lease of minutes never allows) may both send
            // a kept attempt under its one key; never more, and a charge answered uncertainly is never sent again
            // (aRenewalWhoseAnswerWasLostIsNeverSentAgain…)
            assertThat(gateway.received()).as("requests to charge period 1 of %s", id)
                    .filteredOn(received -> received.isCharge() && ChargeKeys.periodCharge(id, 1, 1).equals(received.idempotencyKey()))
                    .hasSizeBetween(1, 2);
            assertThat(db.count("select count(*) from payment where subscription_id = ? and period = 1", id)).isOne();
        }
        // The sandbox resets the next two charges it receives, whoever sends them: with the moved clock the
        // background renewal poller may charge another class's subscription first, so up to two of ours stay in flight.
        assertThat(db.count("select count(*) from payment where subscription_id = any(string_to_array(?, ',')::uuid[]) and period = 1"
                + " and status = 'IN_PROGRESS'", String.join(",", subscriptions.stream().map(UUID::toString).toList()))).isBetween(0L, 2L);
    }

    @Test
    void aScanPutsEveryDueSubscriptionInLineNotOnlyItsFirstPage() throws Throwable {
        List<UUID> subscriptions = active(5);
        clock.advance(Duration.ofDays(32));

        // pages of two (the test profile's scan-limit): a scan of the first page alone would find the same two
        // every time while their renewals are in flight, and never the other three
        VertxContextSupport.subscribeAndAwait(() -> renewals.scan());

        assertThat(db.count("select count(*) from work_item where queue = ? and split_part(item_key, ':v', 1) = any(string_to_array(?, ','))",
                Renewals.QUEUE, String.join(",", subscriptions.stream().map(id -> id + ":p1:a1").toList()))).isEqualTo(5);
        drain();
        assertThat(subscriptions).allSatisfy(id -> assertThat(db.text("select paid_through from subscription where id = ?", id)).isEqualTo("1"));
    }

    @Test
    void theClockControlIsForOperatorsOfTestAndLocalRunsOnly() {
        given().auth().oauth2(Tokens.admin()).when().get("/test-control/clock").then().statusCode(200).body("now", notNullValue());
        given().auth().oauth2(Tokens.admin()).contentType(ContentType.JSON).body("{\"by\":\"PT1S\"}")
                .when().post("/test-control/clock/advance").then().statusCode(200);
        given().auth().oauth2(Tokens.admin()).contentType(ContentType.JSON).body("{\"by\":\"-PT1S\"}")
                .when().post("/test-control/clock/advance").then().statusCode(422).contentType("application/problem+json");
        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body("{\"by\":\"PT1S\"}")
                .when().post("/test-control/clock/advance").then().statusCode(403);
    }

    private List<UUID> active(int count) {
        List<UUID> subscriptions = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            subscriptions.add(active());
        }
        return subscriptions;
    }

    private UUID active() {
        return active(Snowflakes.random());
    }

    private UUID active(String guild) {
        return UUID.fromString(subscribe(user, guild, "PRO", key).then().statusCode(201).extract().path("id"));
    }

    @Test
    void whileItsRenewalIsBeingChargedASubscriptionTakesNoPlanChangeAndNoCancelAtPeriodEnd() throws Throwable {
        UUID id = active();
        // its renewal stored and sent, the gateway's answer not in yet (a drain would renew the other tests' subscriptions too)
        db.execute("""
                insert into payment (id, subscription_id, period, purpose, order_id, idempotency_key, amount, status, attempted_at, created_at)
                values (?, ?, 1, 'PERIOD', ?, ?, 9900, 'IN_PROGRESS', now(), now())""",
                UUID.randomUUID(), id, "pay-renewal-" + id, ChargeKeys.periodCharge(id, 1, 1));

        // priced for PRO: a plan change or an end accepted now could leave the period paid at one price and served at another
        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body("{\"planCode\":\"PREMIUM\"}")
                .when().put("/subscriptions/{id}/plan", id).then().statusCode(409).contentType("application/problem+json");
        given().auth().oauth2(Tokens.user(user.toString())).when().delete("/subscriptions/{id}?at=period-end", id)
                .then().statusCode(409).contentType("application/problem+json");
        assertThat(db.text("select plan_code || ':' || cancel_at_period_end from subscription where id = ?", id)).isEqualTo("PRO:false");
        assertThat(db.count("select count(*) from payment where subscription_id = ?", id)).isEqualTo(2);
    }

    @Test
    void aRenewalDueWhileAnUpgradeIsBeingChargedWaitsForItInsteadOfChargingTheOldPlan() throws Throwable {
        UUID id = active();
        // inside the paid period whatever the month's length, then past its end
        clock.advance(Duration.ofDays(27));
        gateway.keepPending(1);
        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body("{\"planCode\":\"PREMIUM\"}")
                .when().put("/subscriptions/{id}/plan", id).then().statusCode(202);
        clock.advance(Duration.ofDays(5));

        drain();

        assertThat(db.count("select count(*) from payment where subscription_id = ? and purpose = 'PERIOD' and period = 1", id)).isZero();
        assertThat(db.text("select status || ':' || last_error from work_item where queue = ? and item_key like ?", Renewals.QUEUE,
                id + ":p1:%")).startsWith("pending:an upgrade of the subscription is being charged");
        // not left pending at the gateway for ever: a later reconciliation run would fail it and watch it as a stray charge
        // that no watch could settle
        chargesOf(id).stream().filter(charge -> charge.status() == Status.IN_PROGRESS)
                .forEach(charge -> gateway.settle(charge.paymentKey(), Status.ABORTED));
    }

    /**
     * The subscription's first renewal falls due, and the gateway takes its money, then answers 500 (its contract's "nothing was
     * done") to every try and calls nobody back: the attempt is kept for the renewal's next try. This test's user only: earlier
     * tests' subscriptions fall due under the moved clock too.
     */
    private void renewedUnderA500ThatCarriedTheChargeOut(UUID id) throws Throwable {
        clock.advance(Duration.ofDays(32));
        gateway.loseCallbacks(Integer.MAX_VALUE);
        gateway.failAfterChargeOf(user.toString(), 500);
        drainUntilKept(List.of(id));
    }

    /**
     * The subscription with a kept attempt the gateway carried out is canceled before its renewal's next try, which finds it
     * changed and sends nothing: reconciliation finds the charge made under the 500, settles it, and since a canceled
     * subscription cannot use it, it is given back.
     */
    private void canceledBeforeTheNextTryThenSettledAndGivenBack(UUID id) throws Throwable {
        given().auth().oauth2(Tokens.user(user.toString())).when().delete("/subscriptions/{id}", id).then().statusCode(200);
        gateway.recover();
        drainPastBackoffUntil(() -> db.count("select count(*) from work_item where queue = ? and item_key like ? and status in ('pending', 'leased')",
                Renewals.QUEUE, id + ":p1:%") == 0);

        VertxContextSupport.subscribeAndAwait(() -> reconciliation.run());
        assertThat(db.text("select status from payment where subscription_id = ? and period = 1", id)).isEqualTo("SUCCEEDED");
        VertxContextSupport.subscribeAndAwait(() -> automaticRefunds.run());
        long kept = chargesOf(id).stream().filter(Charge::tookMoney).mapToLong(charge -> charge.amount()
                - gateway.cancelsOf(charge.paymentKey()).stream().mapToLong(Cancel::amount).sum()).sum();
        assertThat(kept).as("the first period only").isEqualTo(9_900);
        await().atMost(WAIT).until(() -> db.count("select coalesce(sum(amount), 0) from ledger_entry where subscription_id = ?", id) == 9_900);
    }

    /**
     * Drains until each subscription's attempt of period 1 is kept IN_PROGRESS by a gateway answering 500: past the backoff of
     * tries that the circuit, opened by those 500s, kept from the gateway (which roll their fresh attempts back).
     */
    private void drainUntilKept(List<UUID> ids) {
        drainPastBackoffUntil(() -> ids.stream().allMatch(id ->
                db.count("select count(*) from payment where subscription_id = ? and period = 1 and status = 'IN_PROGRESS'", id) == 1));
    }

    /** Scans and runs rounds until nothing is due: every due step of every subscription done. */
    private void drain() throws Throwable {
        VertxContextSupport.subscribeAndAwait(() -> renewals.scan());
        while (VertxContextSupport.subscribeAndAwait(() -> renewals.runOnce()) > 0) {
            VertxContextSupport.subscribeAndAwait(() -> renewals.scan());
        }
    }

    /** Moves the clock past the renewal item's backoff and drains, as often as the circuit the 500s opened keeps it from the gateway. */
    private void drainPastBackoffUntil(Callable<Boolean> done) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            clock.advance(Duration.ofMinutes(31));
            try {
                drain();
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
            return done.call();
        });
    }

    private static <T> Callable<T> onVertx(java.util.function.Supplier<io.smallrye.mutiny.Uni<T>> work) {
        return () -> {
            try {
                return VertxContextSupport.subscribeAndAwait(work);
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        };
    }
}
