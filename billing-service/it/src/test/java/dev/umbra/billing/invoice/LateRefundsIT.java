package dev.umbra.billing.invoice;

import static dev.umbra.billing.BillingFixtures.distinctEvents;
import static dev.umbra.billing.BillingFixtures.invoicesOf;
import static dev.umbra.billing.BillingFixtures.refund;
import static dev.umbra.billing.BillingFixtures.subscribe;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;

import dev.umbra.billing.PayingUserTest;
import dev.umbra.devstack.PaymentGatewaySandbox.Cancel;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.platform.workqueue.PagedRun;
import dev.umbra.testing.Concurrently;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A refund failed after an uncertain cancel ("the gateway has no cancel for it") whose cancel the gateway
 * executes later: the money went back to the customer, so billing records it after all, once
 * ({@link LateRefunds}). The sandbox plays the late cancel with its latency: the cancel is executed only
 * after the client gave up waiting for the answer, and after the refund reconciliation failed the refund.
 */
@QuarkusTest
// the cancel's answer that never comes in time, a proxy's 502: the guard reports them
@ExpectedLog(category = "dev.umbra.billing.gateway.GatewayGuards")
// money that went back after the refund had failed: an operator is told
@ExpectedLog(category = "dev.umbra.billing.invoice.LateRefunds", message = "recorded now")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
class LateRefundsIT extends PayingUserTest {

    /** Longer than the test profile's read timeout of pg-payment (2 s) and the reconciliation run that follows it. */
    private static final Duration CANCEL_EXECUTED_AFTER = Duration.ofSeconds(8);

    @Inject
    RefundReconciliation reconciliation;

    @Inject
    LateRefunds lateRefunds;

    @Inject
    MeterRegistry registry;

    @Test
    void aCancelTheGatewayExecutesAfterTheRefundFailedIsRecordedOnce() {
        double recordedBefore = counted("recorded");
        Paid paid = paidInvoice();
        Late late = lateCancel(paid, 9_900);
        assertThat(db.text("select status from refund_watch where refund_id = ?", late.refundId())).isEqualTo("WATCHING");

        assertThat(watch().count(LateRefunds.Result.RECORDED)).isOne();

        Cancel cancel = gateway.cancelsOf(paid.paymentKey()).get(0);
        assertThat(db.text("select status from refund where id = ?", late.refundId())).isEqualTo("SUCCEEDED");
        assertThat(db.text("select gateway_transaction_key from refund where id = ?", late.refundId())).isEqualTo(cancel.transactionKey());
        invoice(paid.invoiceId()).then().body("status", equalTo("REFUNDED")).body("refunded", equalTo(9_900));
        assertThat(db.text("select string_agg(kind || ':' || amount, ',' order by recorded_at, booked_at) from ledger_entry "
                + "where subscription_id = ?", paid.subscriptionId())).isEqualTo("CHARGE:9900,REFUND:-9900");
        assertThat(db.text("select status || ':' || cancel_transaction_key from refund_watch where refund_id = ?", late.refundId()))
                .isEqualTo("RECORDED:" + cancel.transactionKey());
        assertThat(counted("recorded")).isEqualTo(recordedBefore + 1);
        // the same key asked again answers what happened
        refund(paid.invoiceId(), 9_900, "late", late.requestKey()).then().statusCode(201).body("status", equalTo("SUCCEEDED"));
        // nothing is left to refund: the invoice is whole again in its books
        refund(paid.invoiceId(), 1, "more", key()).then().statusCode(422);

        long cancelsSent = gateway.cancelAttempts();
        db.execute("update refund_watch set next_look_at = now() where refund_id = ?", late.refundId());
        watch();
        onContext(() -> reconciliation.run());

        assertThat(gateway.cancelAttempts()).isEqualTo(cancelsSent);
        assertThat(db.count("select count(*) from ledger_entry where kind = 'REFUND' and subscription_id = ?", paid.subscriptionId())).isOne();
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.INVOICE))) {
            await().atMost(WAIT).until(() -> distinctEvents(topic, paid.invoiceId().toString(), "RefundSucceeded") == 1);
            // give a second event (none expected) the time the first one took to arrive
            await().pollDelay(Duration.ofSeconds(3)).atMost(WAIT).until(() -> true);
            assertThat(distinctEvents(topic, paid.invoiceId().toString(), "RefundSucceeded")).isOne();
        }
    }

    @Test
    void twoRunsAtOnceRecordEachLateCancelOnce() throws Exception {
        List<Paid> paid = List.of(paidInvoice(), paidInvoice(), paidInvoice());
        gateway.respondAfter(CANCEL_EXECUTED_AFTER, CANCEL_EXECUTED_AFTER);
        Concurrently.run(paid.size(), i -> refund(paid.get(i).invoiceId(), 4_000, "late " + i, key()).then().statusCode(202));
        gateway.recover();
        paid.forEach(one -> ageRefunds(one.invoiceId()));
        onContext(() -> reconciliation.run());
        for (Paid one : paid) {
            assertThat(db.text("select status from refund where invoice_id = ?", one.invoiceId())).isEqualTo("FAILED");
        }
        await().atMost(WAIT).until(() -> paid.stream().allMatch(one -> gateway.cancelsOf(one.paymentKey()).size() == 1));
        paid.forEach(one -> db.execute("update refund_watch w set next_look_at = now() from refund r where r.id = w.refund_id "
                + "and r.invoice_id = ?", one.invoiceId()));

        List<PagedRun.Summary<LateRefunds.Result>> runs = Concurrently.run(2, i -> watch());

        assertThat(runs).allSatisfy(run -> assertThat(run.unreachable()).isZero());
        assertThat(runs.stream().mapToInt(run -> run.count(LateRefunds.Result.RECORDED)).sum()).isEqualTo(3);
        for (Paid one : paid) {
            assertThat(db.text("select status from refund where invoice_id = ?", one.invoiceId())).isEqualTo("SUCCEEDED");
            // stored IN_PROGRESS, FAILED, SUCCEEDED: changed twice
            assertThat(db.count("select version from refund where invoice_id = ?", one.invoiceId())).isEqualTo(2);
            assertThat(db.count("select refunded from invoice where id = ?", one.invoiceId())).isEqualTo(4_000);
            assertThat(db.count("select count(*) from ledger_entry where kind = 'REFUND' and subscription_id = ?", one.subscriptionId()))
                    .isOne();
        }
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.INVOICE))) {
            await().atMost(WAIT).until(() -> paid.stream().allMatch(one -> distinctEvents(topic, one.invoiceId().toString(), "RefundSucceeded") == 1));
            await().pollDelay(Duration.ofSeconds(3)).atMost(WAIT).until(() -> true);
            assertThat(paid).allSatisfy(one -> assertThat(distinctEvents(topic, one.invoiceId().toString(), "RefundSucceeded")).isOne());
        }
    }

    @Test
    void aCancelThatNeverArrivesIsWatchedUntilTheWatchEndsAndTheRefundStaysFailed() {
        double nothingBefore = counted("nothing_arrived");
        Paid paid = paidInvoice();
        // a proxy's 502: the request may have reached the gateway (here it did not)
        gateway.failNext(1, 502);
        UUID refundId = UUID.fromString(refund(paid.invoiceId(), 9_900, "proxy", key()).then().statusCode(202).extract().path("id"));
        ageRefunds(paid.invoiceId());
        onContext(() -> reconciliation.run());
        assertThat(db.text("select status || ':' || reason from refund_watch where refund_id = ?", refundId))
                .startsWith("WATCHING:").contains("never arrived");
        long cancelsSent = gateway.cancelAttempts();

        lookNow(refundId);
        // other tests' watches may be due too
        assertThat(watch().count(LateRefunds.Result.STILL_WATCHING)).isGreaterThanOrEqualTo(1);
        assertThat(db.text("select status from refund_watch where refund_id = ?", refundId)).isEqualTo("WATCHING");
        assertThat(db.count("select looks from refund_watch where refund_id = ?", refundId)).isOne();

        db.execute("update refund_watch set watch_until = now() - interval '1 second', next_look_at = now() where refund_id = ?", refundId);
        assertThat(watch().count(LateRefunds.Result.NOTHING_ARRIVED)).isGreaterThanOrEqualTo(1);

        assertThat(db.text("select status from refund_watch where refund_id = ?", refundId)).isEqualTo("NOTHING_ARRIVED");
        assertThat(db.text("select status from refund where id = ?", refundId)).isEqualTo("FAILED");
        assertThat(gateway.cancelAttempts()).as("the watch never sends a cancel").isEqualTo(cancelsSent);
        assertThat(gateway.cancelsOf(paid.paymentKey())).isEmpty();
        assertThat(db.count("select count(*) from ledger_entry where kind = 'REFUND' and subscription_id = ?", paid.subscriptionId())).isZero();
        assertThat(counted("nothing_arrived")).isEqualTo(nothingBefore + 1);
    }

    @Test
    void aCancelTheGatewayCarriedOutWhileAnsweringThatItDidNothingIsFailedWatchedAndRecordedOnce() {
        double watchedBefore = counted("watching");
        Paid paid = paidInvoice();
        String requestKey = key();
        // the gateway gives the money back, then answers 500 (its contract's "nothing was done") to the cancel and to the guard's retries
        gateway.failAfterCancel(10, 500);

        refund(paid.invoiceId(), 4_000, "broken contract", requestKey).then().statusCode(502)
                .contentType("application/problem+json").header("Retry-After", matchesPattern("\\d+"))
                .body("detail", containsString("new Idempotency-Key"));
        gateway.recover();

        // kept, not rolled back: a retry is a new refund, and the gateway's cancel is found by this one's key
        assertThat(db.count("select count(*) from refund where invoice_id = ?", paid.invoiceId())).isOne();
        String refundId = db.text("select id::text from refund where invoice_id = ?", paid.invoiceId());
        assertThat(db.text("select status || ':' || failure_message from refund where id = ?::uuid", refundId))
                .startsWith("FAILED:").contains("answered that it did nothing");
        assertThat(db.count("select refund_reserved from invoice where id = ?", paid.invoiceId())).isZero();
        assertThat(db.text("select status from refund_watch where refund_id = ?::uuid", refundId)).isEqualTo("WATCHING");
        assertThat(counted("watching")).isEqualTo(watchedBefore + 1);
        refund(paid.invoiceId(), 4_000, "broken contract", requestKey).then().statusCode(422);
        assertThat(gateway.cancelsOf(paid.paymentKey())).singleElement()
                .satisfies(cancel -> assertThat(cancel.idempotencyKey()).isEqualTo("refund-" + refundId));

        db.execute("update refund_watch set next_look_at = now() where refund_id = ?::uuid", refundId);
        long cancelsSent = gateway.cancelAttempts();
        assertThat(watch().count(LateRefunds.Result.RECORDED)).isOne();

        assertThat(gateway.cancelAttempts()).as("the watch never sends a cancel").isEqualTo(cancelsSent);
        assertThat(db.text("select status from refund where id = ?::uuid", refundId)).isEqualTo("SUCCEEDED");
        invoice(paid.invoiceId()).then().body("status", equalTo("PARTIALLY_REFUNDED")).body("refunded", equalTo(4_000));
        assertThat(db.text("select string_agg(kind || ':' || amount, ',' order by recorded_at, booked_at) from ledger_entry "
                + "where subscription_id = ?", paid.subscriptionId())).isEqualTo("CHARGE:9900,REFUND:-4000");
    }

    @Test
    void aLateCancelWaitsWhileARefundInFlightHoldsTheInvoiceThenIsRecorded() {
        Paid paid = paidInvoice();
        Late late = lateCancel(paid, 5_000);
        // a refund of everything asked since (the first one had failed): its cancel gets a proxy's 502 and never arrives
        gateway.failNext(1, 502);
        UUID inFlight = UUID.fromString(refund(paid.invoiceId(), 9_900, "all of it", key()).then().statusCode(202).extract().path("id"));

        lookNow(late.refundId());
        assertThat(watch().count(LateRefunds.Result.WAITING_FOR_ROOM)).isOne();
        assertThat(db.text("select status from refund where id = ?", late.refundId())).isEqualTo("FAILED");
        assertThat(db.text("select status from refund_watch where refund_id = ?", late.refundId())).isEqualTo("WATCHING");

        // the refund in flight is failed by the reconciliation (the gateway has no cancel for it): the amount is free again
        ageRefunds(paid.invoiceId());
        onContext(() -> reconciliation.run());
        assertThat(db.text("select status from refund where id = ?", inFlight)).isEqualTo("FAILED");
        lookNow(late.refundId());
        watch();

        assertThat(db.text("select status from refund where id = ?", late.refundId())).isEqualTo("SUCCEEDED");
        assertThat(db.text("select status from refund_watch where refund_id = ?", inFlight)).isEqualTo("WATCHING");
        invoice(paid.invoiceId()).then().body("status", equalTo("PARTIALLY_REFUNDED")).body("refunded", equalTo(5_000));
        assertThat(db.count("select refund_reserved from invoice where id = ?", paid.invoiceId())).isEqualTo(5_000);
        assertThat(db.text("select string_agg(kind || ':' || amount, ',' order by recorded_at, booked_at) from ledger_entry "
                + "where subscription_id = ?", paid.subscriptionId())).isEqualTo("CHARGE:9900,REFUND:-5000");
        // what the gateway kept is what the books say
        long givenBack = gateway.cancelsOf(paid.paymentKey()).stream().mapToLong(Cancel::amount).sum();
        assertThat(givenBack).isEqualTo(5_000);
    }

    /** A refund whose cancel the gateway answers only after the read timeout and executes after the refund reconciliation failed it. */
    private record Late(UUID refundId, String requestKey) {
    }

    private Late lateCancel(Paid paid, long amount) {
        String requestKey = key();
        // the gateway takes its time over the cancel: it is executed only after the answer was given up on
        gateway.respondAfter(CANCEL_EXECUTED_AFTER, CANCEL_EXECUTED_AFTER);
        UUID refundId = UUID.fromString(refund(paid.invoiceId(), amount, "late", requestKey).then().statusCode(202)
                .body("status", equalTo("IN_PROGRESS")).extract().path("id"));
        gateway.recover();
        ageRefunds(paid.invoiceId());
        onContext(() -> reconciliation.run());
        assertThat(db.text("select status || ':' || failure_message from refund where id = ?", refundId))
                .startsWith("FAILED:").contains("never arrived");
        assertThat(gateway.cancelsOf(paid.paymentKey())).as("the cancel is not executed before the reconciliation failed the refund")
                .isEmpty();
        await().atMost(WAIT).until(() -> !gateway.cancelsOf(paid.paymentKey()).isEmpty());
        assertThat(gateway.cancelsOf(paid.paymentKey())).singleElement().satisfies(cancel -> {
            assertThat(cancel.idempotencyKey()).isEqualTo("refund-" + refundId);
            assertThat(cancel.amount()).isEqualTo(amount);
        });
        return new Late(refundId, requestKey);
    }

    private PagedRun.Summary<LateRefunds.Result> watch() {
        return onContext(() -> lateRefunds.run());
    }

    private void lookNow(UUID refundId) {
        db.execute("update refund_watch set next_look_at = now() where refund_id = ?", refundId);
    }

    private double counted(String status) {
        return registry.get("umbra.billing.late.refunds").tag("status", status).counter().count();
    }

    /** A PRO subscription's paid first charge: its invoice and the gateway's key of the payment. */
    private record Paid(UUID subscriptionId, UUID invoiceId, String paymentKey) {
    }

    private Paid paidInvoice() {
        UUID subscription = UUID.fromString(subscribe(user, Snowflakes.random(), "PRO", key).then().statusCode(201).extract().path("id"));
        UUID invoice = UUID.fromString((String) invoicesOf(subscription).get(0).get("id"));
        String paymentKey = db.text("select p.external_payment_key from payment p join invoice i on i.payment_id = p.id where i.id = ?", invoice);
        return new Paid(subscription, invoice, paymentKey);
    }

    private static io.restassured.response.Response invoice(UUID invoiceId) {
        return given().auth().oauth2(Tokens.admin()).when().get("/invoices/{id}", invoiceId);
    }

    private static String key() {
        return "refund-request-" + UUID.randomUUID();
    }

    /** Older than the test profile's settle-after (1 s): the reconciliation looks at them. */
    private void ageRefunds(UUID invoiceId) {
        db.execute("update refund set attempted_at = attempted_at - interval '1 minute' where invoice_id = ? and status = 'IN_PROGRESS'",
                invoiceId);
    }

    private static <T> T onContext(Supplier<Uni<T>> work) {
        try {
            return VertxContextSupport.subscribeAndAwait(work::get);
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }
}
