package dev.umbra.billing.payment;

import static dev.umbra.billing.payment.GatewayCharges.WAIT;
import static dev.umbra.billing.payment.GatewayCharges.outcomes;
import static dev.umbra.billing.payment.GatewayCharges.paymentChanges;
import static dev.umbra.billing.payment.GatewayCharges.status;
import static dev.umbra.billing.payment.GatewayCharges.webhookEvents;
import static dev.umbra.billing.payment.GatewayCharges.webhookKeys;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.devstack.PaymentGatewaySandbox.Callback;
import dev.umbra.devstack.PaymentGatewaySandbox.Charge;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.Metrics;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The gateway's signed callbacks, from devstack's sandbox (and forged ones), against the service's intake. */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.billing.payment.PaymentSettlement", message = "which is none of billing's payments")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
class PaymentCallbackIT extends SandboxCallingBack {

    @TestHTTPResource(value = "/metrics", management = true)
    URL metrics;

    @Test
    void aCallbackSettlesThePaymentByItsOrderIdWhenItsKeyIsNotStoredYet() {
        PaymentRows.FirstCharge payment = PaymentRows.inProgress(db, 9_900, null, Instant.now());
        String paymentKey = gateway.chargeAccepted(payment);

        await().atMost(WAIT).until(() -> status(db, payment.paymentId()).equals("SUCCEEDED"));
        assertThat(db.text("select external_payment_key from payment where id = ?", payment.paymentId())).isEqualTo(paymentKey);
        assertThat(db.count("select paid_amount from payment where id = ?", payment.paymentId())).isEqualTo(9_900);
        assertThat(paymentChanges(db, payment.paymentId())).isEqualTo(1);
        assertThat(outcomes(db, payment.subscriptionId())).isEqualTo(1);
        assertThat(db.text("select status from subscription where id = ?", payment.subscriptionId())).isEqualTo("ACTIVE");
        await().atMost(WAIT).until(() -> sandbox.callbacks().stream().anyMatch(c -> c.paymentKey().equals(paymentKey) && c.answer() == 200));
        assertThat(db.text("select status || ' ' || result || ' ' || attempts from webhook_events where payload ->> 'paymentKey' = ?", paymentKey))
                .isEqualTo("completed SUCCEEDED 1");
        assertThat(webhookKeys(db, paymentKey)).isEqualTo(1);
    }

    @Test
    void eventsLandInTheirMonthsPartitionAndMonthsAheadAreReady() {
        PaymentRows.FirstCharge payment = PaymentRows.inProgress(db, 9_900, null, Instant.now());
        String paymentKey = gateway.chargeAccepted(payment);
        await().atMost(WAIT).until(() -> webhookEvents(db, paymentKey) == 1);

        String month = java.time.YearMonth.now(java.time.ZoneOffset.UTC).format(java.time.format.DateTimeFormatter.ofPattern("yyyy_MM"));
        assertThat(db.text("select tableoid::regclass::text from webhook_events where payload ->> 'paymentKey' = ?", paymentKey))
                .isEqualTo("webhook_events_" + month);
        assertThat(db.count("select count(*) from pg_inherits where inhparent = 'webhook_events'::regclass")).isGreaterThanOrEqualTo(5);
        assertThat(db.count("select ensure_webhook_events_partitions(3)")).isZero();
    }

    @Test
    void aDeclinedChargeFailsThePaymentOnce() {
        PaymentRows.FirstCharge payment = PaymentRows.inProgress(db, 9_900, null, Instant.now());
        sandbox.decline(1);
        gateway.charge(payment);

        await().atMost(WAIT).until(() -> status(db, payment.paymentId()).equals("FAILED"));
        assertThat(db.text("select failure_message from payment where id = ?", payment.paymentId())).contains("ABORTED");
        assertThat(outcomes(db, payment.subscriptionId())).isEqualTo(1);
        assertThat(db.text("select status from subscription where id = ?", payment.subscriptionId())).isEqualTo("CANCELED");
    }

    @Test
    void aDuplicatedCallbackIsRecordedOnceAndAppliedOnce() {
        PaymentRows.FirstCharge payment = PaymentRows.inProgress(db, 9_900, null, Instant.now());
        sandbox.duplicateCallbacks(1);
        String paymentKey = gateway.chargeAccepted(payment);

        await().atMost(WAIT).until(() -> sandbox.callbacks().stream().filter(c -> c.paymentKey().equals(paymentKey)).count() == 2);
        assertThat(sandbox.callbacks()).filteredOn(c -> c.paymentKey().equals(paymentKey)).extracting(Callback::answer).containsOnly(200);
        assertThat(status(db, payment.paymentId())).isEqualTo("SUCCEEDED");
        assertThat(webhookKeys(db, paymentKey)).isEqualTo(1);
        assertThat(webhookEvents(db, paymentKey)).isEqualTo(1);
        assertThat(paymentChanges(db, payment.paymentId())).isEqualTo(1);
        assertThat(outcomes(db, payment.subscriptionId())).isEqualTo(1);
        given().get(metrics).then().statusCode(200)
                .body(org.hamcrest.Matchers.containsString("umbra_billing_webhook_duplicates_total{provider=\"payment-gateway\"}"));
    }

    @Test
    void oneCallbackDeliveredManyTimesAtOnceIsAppliedOnce() throws Exception {
        PaymentRows.FirstCharge payment = PaymentRows.inProgress(db, 9_900, null, Instant.now());
        sandbox.loseCallbacks(1);
        String paymentKey = gateway.chargeAccepted(payment);
        String body = GatewayCharges.callbackBody(sandbox.chargesOf(payment.orderId()).get(0), "DONE");

        ExecutorService senders = Executors.newFixedThreadPool(8);
        List<Callable<Integer>> deliveries = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            deliveries.add(() -> gateway.deliver(body, Instant.now()).statusCode());
        }
        List<Integer> answers = new ArrayList<>();
        for (Future<Integer> answer : senders.invokeAll(deliveries)) {
            answers.add(answer.get());
        }
        senders.shutdown();

        assertThat(answers).containsOnly(200);
        assertThat(status(db, payment.paymentId())).isEqualTo("SUCCEEDED");
        assertThat(webhookKeys(db, paymentKey)).isEqualTo(1);
        assertThat(webhookEvents(db, paymentKey)).isEqualTo(1);
        assertThat(paymentChanges(db, payment.paymentId())).isEqualTo(1);
        assertThat(outcomes(db, payment.subscriptionId())).isEqualTo(1);
    }

    @Test
    void aCallbackWaitsForThePaymentBeforeTouchingItsSubscriptionAsTheChargesOwnAnswerDoes() throws Exception {
        PaymentRows.FirstCharge payment = PaymentRows.inProgress(db, 9_900, null, Instant.now());
        sandbox.loseCallbacks(1);
        gateway.chargeAccepted(payment);
        String body = GatewayCharges.callbackBody(sandbox.chargesOf(payment.orderId()).get(0), "DONE");

        ExecutorService sender = Executors.newSingleThreadExecutor();
        Future<Integer> answer;
        // as the charge's own settlement does: the payment locked first, its subscription next
        try (AutoCloseable chargeSettling = db.holding("select id from payment where id = ? for update", payment.paymentId())) {
            answer = sender.submit(() -> gateway.deliver(body, Instant.now()).statusCode());
            await().atMost(WAIT).until(() -> db.count("select count(*) from pg_stat_activity where datname = current_database()"
                    + " and wait_event_type = 'Lock'") == 1);
            // the callback waits for the payment and holds nothing the charge's settlement needs next: no deadlock
            assertThat(db.text("select id::text from subscription where id = ? for update nowait", payment.subscriptionId()))
                    .isEqualTo(payment.subscriptionId().toString());
        }
        assertThat(answer.get()).isEqualTo(200);
        sender.shutdown();
        await().atMost(WAIT).until(() -> status(db, payment.paymentId()).equals("SUCCEEDED"));
        assertThat(paymentChanges(db, payment.paymentId())).isEqualTo(1);
        assertThat(outcomes(db, payment.subscriptionId())).isEqualTo(1);
    }

    @Test
    void aDeliveryWhoseApplyWasCutShortIsAppliedByTheNextOne() {
        PaymentRows.FirstCharge payment = PaymentRows.inProgress(db, 9_900, null, Instant.now());
        sandbox.loseCallbacks(1);
        String paymentKey = gateway.chargeAccepted(payment);
        String body = GatewayCharges.callbackBody(sandbox.chargesOf(payment.orderId()).get(0), "DONE");
        // what a fault between recording the event and applying it leaves: the key taken, the event claimed, the payment untouched
        UUID event = UUID.randomUUID();
        db.execute("insert into webhook_event_key values ('payment-gateway', ?, ?, now())", paymentKey + ":DONE", event);
        db.execute("insert into webhook_events (id, received_at, provider, provider_event_id, event_type, payload, status, attempts) "
                + "select event_id, received_at, provider, provider_event_id, 'PAYMENT_STATUS_CHANGED', cast(? as jsonb), 'processing', 1 "
                + "from webhook_event_key where event_id = ?", "{\"paymentKey\":\"" + paymentKey + "\"}", event);

        gateway.deliver(body, Instant.now()).then().statusCode(200).body("status", equalTo("completed"));
        gateway.deliver(body, Instant.now()).then().statusCode(200).body("status", equalTo("completed"));

        assertThat(status(db, payment.paymentId())).isEqualTo("SUCCEEDED");
        assertThat(outcomes(db, payment.subscriptionId())).isEqualTo(1);
        assertThat(webhookKeys(db, paymentKey)).isEqualTo(1);
        assertThat(db.text("select status || ' ' || attempts from webhook_events where id = ?", event)).isEqualTo("completed 2");
    }

    @Test
    void forgedStaleAndMalformedCallbacksAreRefusedAndNothingIsStored() {
        PaymentRows.FirstCharge payment = PaymentRows.inProgress(db, 9_900, null, Instant.now());
        sandbox.loseCallbacks(1);
        String paymentKey = gateway.chargeAccepted(payment);
        Charge charge = sandbox.chargesOf(payment.orderId()).get(0);
        String body = GatewayCharges.callbackBody(charge, "DONE");
        long eventsBefore = db.count("select count(*) from webhook_events");
        long keysBefore = db.count("select count(*) from webhook_event_key");
        String now = Long.toString(Instant.now().getEpochSecond());

        // forged: signed for another body, or with no signature at all
        String other = GatewayCharges.callbackBody(charge, "CANCELED");
        refused(given().contentType(ContentType.JSON).header(PaymentGatewaySandbox.TIMESTAMP_HEADER, now)
                .header(PaymentGatewaySandbox.SIGNATURE_HEADER, "v1=" + sandbox.sign(now + "." + other)).body(body).post(GatewayCharges.WEBHOOK), 401);
        refused(given().contentType(ContentType.JSON).header(PaymentGatewaySandbox.TIMESTAMP_HEADER, now).body(body).post(GatewayCharges.WEBHOOK), 401);
        refused(given().contentType(ContentType.JSON).header(PaymentGatewaySandbox.TIMESTAMP_HEADER, now)
                .header(PaymentGatewaySandbox.SIGNATURE_HEADER, "v1=" + "ab".repeat(32)).body(body).post(GatewayCharges.WEBHOOK), 401);
        // replayed: genuinely signed, but too old (or dated ahead)
        refused(gateway.deliver(body, Instant.now().minus(Duration.ofMinutes(6))), 401);
        refused(gateway.deliver(body, Instant.now().plus(Duration.ofMinutes(6))), 401);
        // malformed, though signed
        refused(gateway.deliver("{not json", Instant.now()), 400);
        refused(gateway.deliver("[]", Instant.now()), 400);
        refused(gateway.deliver("{\"data\":{}}", Instant.now()), 400);
        refused(gateway.deliver(body.replace("\"paymentKey\":\"" + paymentKey + "\",", ""), Instant.now()), 400);
        refused(gateway.deliver(body.replace("\"totalAmount\":9900", "\"totalAmount\":\"9900\""), Instant.now()), 400);
        refused(gateway.deliver(body.replace("\"totalAmount\":9900", "\"totalAmount\":99.5"), Instant.now()), 400);
        // fields of lengths each allowed alone, whose event id ("paymentKey:status") would not fit its column
        refused(gateway.deliver(body.replace("\"paymentKey\":\"" + paymentKey + "\"", "\"paymentKey\":\"" + "k".repeat(100) + "\"")
                .replace("\"status\":\"DONE\"", "\"status\":\"" + "D".repeat(100) + "\""), Instant.now()), 400);

        assertThat(db.count("select count(*) from webhook_events")).isEqualTo(eventsBefore);
        assertThat(db.count("select count(*) from webhook_event_key")).isEqualTo(keysBefore);
        assertThat(status(db, payment.paymentId())).isEqualTo("IN_PROGRESS");
        assertThat(paymentChanges(db, payment.paymentId())).isZero();
        assertThat(outcomes(db, payment.subscriptionId())).isZero();

        // the genuine one still goes through afterwards
        gateway.deliver(body, Instant.now()).then().statusCode(200).body("status", equalTo("completed"));
        assertThat(status(db, payment.paymentId())).isEqualTo("SUCCEEDED");
    }

    /**
     * A charge the gateway reports DONE for an order no payment has (an attempt rolled back as never charged, whose charge
     * the gateway lists after all): nothing here can give that money back by itself, so it is counted and logged for an
     * operator (alert ChargeWithoutPayment), and acknowledged so that the gateway stops sending it.
     */
    @Test
    void aChargeReportedDoneForAnOrderNoPaymentHasIsCountedAndLogged() {
        PaymentRows.FirstCharge payment = PaymentRows.inProgress(db, 9_900, null, Instant.now());
        sandbox.loseCallbacks(1);
        gateway.chargeAccepted(payment);
        Charge charge = sandbox.chargesOf(payment.orderId()).get(0);
        double before = unmatched();
        String orderId = "order-" + UUID.randomUUID();
        Charge elsewhere = new Charge("pay_" + UUID.randomUUID().toString().replace("-", ""), orderId, charge.idempotencyKey(),
                charge.billingKey(), charge.amount(), charge.amount(), PaymentGatewaySandbox.Status.DONE, charge.requestedAt());

        gateway.deliver(GatewayCharges.callbackBody(elsewhere, "DONE"), Instant.now()).then().statusCode(200).body("status", equalTo("failed"));
        assertThat(unmatched()).isEqualTo(before + 1);
        // a report of a charge that took nothing is no money to give back
        Charge declined = new Charge("pay_" + UUID.randomUUID().toString().replace("-", ""), "order-" + UUID.randomUUID(), charge.idempotencyKey(),
                charge.billingKey(), charge.amount(), charge.amount(), PaymentGatewaySandbox.Status.ABORTED, charge.requestedAt());
        gateway.deliver(GatewayCharges.callbackBody(declined, "ABORTED"), Instant.now()).then().statusCode(200);
        assertThat(unmatched()).isEqualTo(before + 1);
    }

    private double unmatched() {
        return Metrics.scrape().sum("umbra_billing_charges_unmatched_total");
    }

    @Test
    void aGenuineEventOfAnotherTypeIsKeptAsSkippedWithoutItsData() {
        String body = "{\"eventType\":\"BILLING_KEY_DELETED\",\"data\":{\"billingKey\":\"bk_secret\",\"card\":{\"number\":\"4330-1234-5678-9012\"}}}";
        gateway.deliver(body, Instant.now()).then().statusCode(200).body("status", equalTo("skipped"));
        gateway.deliver(body, Instant.now()).then().statusCode(200).body("status", equalTo("skipped"));

        assertThat(db.count("select count(*) from webhook_events where event_type = 'BILLING_KEY_DELETED' and payload::text like '%4330%'")).isZero();
        assertThat(db.count("select count(*) from webhook_events where event_type = 'BILLING_KEY_DELETED' and status = 'skipped'"))
                .isGreaterThanOrEqualTo(1);
    }

    private static void refused(io.restassured.response.Response answer, int status) {
        answer.then().statusCode(status).contentType("application/problem+json").body("status", equalTo(status));
    }
}
