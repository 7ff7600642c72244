package dev.umbra.billing.invoice;

import static dev.umbra.billing.BillingFixtures.distinctEvents;
import static dev.umbra.billing.BillingFixtures.invoicesOf;
import static dev.umbra.billing.BillingFixtures.ofAggregate;
import static dev.umbra.billing.BillingFixtures.refund;
import static dev.umbra.billing.BillingFixtures.subscribe;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;

import dev.umbra.billing.PayingUserTest;
import dev.umbra.billing.gateway.PaymentGatewayClient;
import dev.umbra.devstack.PaymentGatewaySandbox.Cancel;
import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.platform.workqueue.PagedRun;
import dev.umbra.testing.Concurrently;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import dev.umbra.testing.LogLines;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Refunds against devstack and the gateway sandbox, whose own record of cancels is what "never more
 * than was paid" and "given back once" are checked against.
 */
@QuarkusTest
// gateway faults played on purpose: its guard reports each retry at WARN
@ExpectedLog(category = "dev.umbra.billing.gateway.GatewayGuards")
// the database fault played after the gateway gave the money back: 503, reconciled later
@ExpectedLog(category = "dev.umbra.platform.web.ProblemMappers", message = "database unavailable")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
@ExpectedLog(category = LogLines.POSTGRESQL, level = "ERROR", message = "^injected fault$")
class RefundsIT extends PayingUserTest {

    @Inject
    RefundReconciliation reconciliation;

    @Inject
    PaymentGatewayClient client;

    @Test
    void partialRefundsUpToWhatWasPaidThenA422() {
        Paid paid = paidInvoice();

        refund(paid.invoiceId(), 4_000, "goodwill", key()).then().statusCode(201).body("status", equalTo("SUCCEEDED"))
                .body("amount", equalTo(4_000));
        invoice(paid.invoiceId()).then().body("status", equalTo("PARTIALLY_REFUNDED")).body("refunded", equalTo(4_000));
        refund(paid.invoiceId(), 5_900, "the rest", key()).then().statusCode(201);
        invoice(paid.invoiceId()).then().body("status", equalTo("REFUNDED")).body("refunded", equalTo(9_900));

        refund(paid.invoiceId(), 1, "one too many", key()).then().statusCode(422).contentType("application/problem+json");

        assertThat(db.count("select count(*) from refund where invoice_id = ?", paid.invoiceId())).isEqualTo(2);
        assertThat(gateway.cancelsOf(paid.paymentKey())).extracting(Cancel::amount).containsExactly(4_000L, 5_900L);
        assertThat(db.text("select string_agg(kind || ':' || amount, ',' order by recorded_at, booked_at) from ledger_entry "
                + "where subscription_id = ?", paid.subscriptionId())).isEqualTo("CHARGE:9900,REFUND:-4000,REFUND:-5900");
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.INVOICE))) {
            await().atMost(WAIT).until(() -> distinctEvents(topic, paid.invoiceId().toString(), "RefundSucceeded") == 2);
            assertThat(distinctEvents(topic, paid.invoiceId().toString(), "InvoiceGenerated")).isEqualTo(1);
            // each entry names the event that booked it: the invoice's for the charge, each refund's for its refund
            List<String> sources = Arrays.asList(db.text("select string_agg(source_event_id::text, ',' order by recorded_at, booked_at) "
                    + "from ledger_entry where subscription_id = ?", paid.subscriptionId()).split(","));
            assertThat(sources.get(0)).isEqualTo(eventIds(topic, paid.invoiceId().toString(), "InvoiceGenerated").get(0));
            assertThat(sources.subList(1, 3)).containsExactlyInAnyOrderElementsOf(eventIds(topic, paid.invoiceId().toString(), "RefundSucceeded"));
        }
    }

    private static List<String> eventIds(KafkaProbe topic, String invoiceId, String eventType) {
        return ofAggregate(topic, invoiceId).stream().filter(r -> eventType.equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)))
                .map(r -> KafkaProbe.header(r, EventHeaders.EVENT_ID)).distinct().toList();
    }

    @Test
    void concurrentRefundsNeverGiveBackMoreThanWasPaid() throws Exception {
        Paid paid = paidInvoice();
        List<Integer> answers = Concurrently.run(8, i -> refund(paid.invoiceId(), 3_000, "race " + i, key()).statusCode());

        assertThat(answers).containsOnly(201, 422);
        assertThat(answers.stream().filter(status -> status == 201)).hasSize(3);
        long givenBack = gateway.cancelsOf(paid.paymentKey()).stream().mapToLong(Cancel::amount).sum();
        assertThat(givenBack).isEqualTo(9_000).isEqualTo(db.count("select refunded from invoice where id = ?", paid.invoiceId()));
        assertThat(db.count("select count(*) from refund where invoice_id = ?", paid.invoiceId())).isEqualTo(3);
        assertThat(db.count("select -sum(amount) from ledger_entry where kind = 'REFUND' and subscription_id = ?", paid.subscriptionId()))
                .isEqualTo(9_000);
    }

    @Test
    void aRepeatedRequestWithTheSameIdempotencyKeyIsOneRefund() throws Exception {
        Paid paid = paidInvoice();
        String key = key();

        // a repeat that arrives while the first is at the gateway answers its state then (202 IN_PROGRESS),
        // one that arrives after it answers the first result (201): which of the two depends on timing
        List<Response> answers = Concurrently.run(4, i -> refund(paid.invoiceId(), 2_000, "twice", key));
        assertThat(answers).extracting(Response::statusCode).isSubsetOf(201, 202).contains(201);
        List<String> ids = answers.stream().map(answer -> answer.<String>path("id")).toList();
        String again = refund(paid.invoiceId(), 2_000, "twice", key).then().statusCode(201).body("status", equalTo("SUCCEEDED"))
                .extract().path("id");

        assertThat(ids).containsOnly(again);
        assertThat(gateway.cancelsOf(paid.paymentKey())).hasSize(1);
        assertThat(db.count("select refunded from invoice where id = ?", paid.invoiceId())).isEqualTo(2_000);
        // the same key for another refund is refused, nothing stored
        refund(paid.invoiceId(), 3_000, "twice", key).then().statusCode(422).contentType("application/problem+json");
        assertThat(db.count("select count(*) from refund where invoice_id = ?", paid.invoiceId())).isEqualTo(1);
    }

    @Test
    void anUncertainCancelStaysInProgressAndTheJobFindsItWithoutSendingItAgain() {
        Paid paid = paidInvoice();
        gateway.resetAfterCancel(1);

        String id = refund(paid.invoiceId(), 9_900, "reset", key()).then().statusCode(202).body("status", equalTo("IN_PROGRESS"))
                .extract().path("id");
        assertThat(gateway.cancelsOf(paid.paymentKey())).hasSize(1);
        assertThat(db.text("select status from invoice where id = ?", paid.invoiceId())).isEqualTo("PAID");
        long cancelsSent = gateway.cancelAttempts();

        ageRefunds(paid.invoiceId());
        PagedRun.Summary<RefundReconciliation.Result> run = reconcile();

        assertThat(run.count(RefundReconciliation.Result.SUCCEEDED)).isGreaterThanOrEqualTo(1);
        assertThat(gateway.cancelAttempts()).isEqualTo(cancelsSent);
        assertThat(db.text("select status from refund where id = ?::uuid", id)).isEqualTo("SUCCEEDED");
        assertThat(db.text("select gateway_transaction_key from refund where id = ?::uuid", id))
                .isEqualTo(gateway.cancelsOf(paid.paymentKey()).get(0).transactionKey());
        invoice(paid.invoiceId()).then().body("status", equalTo("REFUNDED"));
        assertThat(db.count("select count(*) from ledger_entry where kind = 'REFUND' and subscription_id = ?", paid.subscriptionId())).isEqualTo(1);
    }

    @Test
    void aCancelAnswered409WhileAnEarlierTryOfItIsCarriedOutIsUncertainAndTheJobRecordsItOnce() {
        Paid paid = paidInvoice();
        // the gateway carries the cancel out and answers 409 "a request with this key is being processed", as it does to a
        // try the guard sends again after a 500 while the first is still under way: not a refusal
        gateway.answerCancelInFlight(1);

        String id = refund(paid.invoiceId(), 9_900, "in flight", key()).then().statusCode(202).body("status", equalTo("IN_PROGRESS"))
                .extract().path("id");
        assertThat(gateway.cancelsOf(paid.paymentKey())).hasSize(1);

        ageRefunds(paid.invoiceId());
        reconcile();

        assertThat(db.text("select status from refund where id = ?::uuid", id)).isEqualTo("SUCCEEDED");
        assertThat(gateway.cancelsOf(paid.paymentKey())).hasSize(1);
        invoice(paid.invoiceId()).then().body("status", equalTo("REFUNDED"));
        assertThat(db.count("select count(*) from ledger_entry where kind = 'REFUND' and subscription_id = ?", paid.subscriptionId())).isEqualTo(1);
    }

    @Test
    void anUncertainCancelTheGatewayNeverMadeFailsAndFreesTheAmount() {
        Paid paid = paidInvoice();
        // a proxy's 502: the request may have reached the gateway (here it did not)
        gateway.failNext(1, 502);

        refund(paid.invoiceId(), 9_900, "proxy", key()).then().statusCode(202);
        ageRefunds(paid.invoiceId());
        reconcile();

        assertThat(db.text("select status || ':' || failure_message from refund where invoice_id = ?", paid.invoiceId()))
                .startsWith("FAILED:").contains("never arrived");
        assertThat(gateway.cancelsOf(paid.paymentKey())).isEmpty();
        refund(paid.invoiceId(), 9_900, "again", key()).then().statusCode(201);
    }

    @Test
    void twoRunsAndTheRequestRacingOverUncertainRefundsSettleEachOnce() throws Exception {
        List<Paid> paid = List.of(paidInvoice(), paidInvoice(), paidInvoice());
        List<String> keys = List.of(key(), key(), key());
        gateway.resetAfterCancel(3);
        for (int i = 0; i < paid.size(); i++) {
            refund(paid.get(i).invoiceId(), 5_000, "race", keys.get(i)).then().statusCode(202);
            ageRefunds(paid.get(i).invoiceId());
        }

        // two reconciliation runs and the client asking again, each refund under its key, all at once
        List<Object> raced = Concurrently.run(3, i -> i < 2 ? reconcile()
                : java.util.stream.IntStream.range(0, paid.size()).mapToObj(r -> refund(paid.get(r).invoiceId(), 5_000, "race", keys.get(r))
                        .statusCode()).toList());
        @SuppressWarnings("unchecked")
        List<PagedRun.Summary<RefundReconciliation.Result>> runs = raced.subList(0, 2).stream()
                .map(run -> (PagedRun.Summary<RefundReconciliation.Result>) run).toList();
        assertThat((List<?>) raced.get(2)).as("the requests asked again: the first refund's state").allSatisfy(answer -> assertThat(answer).isIn(201, 202));

        assertThat(runs.stream().mapToInt(run -> run.count(RefundReconciliation.Result.SUCCEEDED)).sum()).isEqualTo(3);
        for (Paid one : paid) {
            assertThat(db.text("select status from refund where invoice_id = ?", one.invoiceId())).isEqualTo("SUCCEEDED");
            assertThat(db.count("select version from refund where invoice_id = ?", one.invoiceId())).isEqualTo(1);
            assertThat(db.count("select count(*) from ledger_entry where kind = 'REFUND' and subscription_id = ?", one.subscriptionId()))
                    .isEqualTo(1);
        }
    }

    @Test
    void aCancelThatSurelyNeverArrivedIsRolledBackAndMayBeAskedAgain() {
        Paid paid = paidInvoice();
        String key = key();
        gateway.refuseConnections();

        refund(paid.invoiceId(), 9_900, "refused", key).then().statusCode(502).contentType("application/problem+json")
                .header("Retry-After", matchesPattern("\\d+"));
        gateway.recover();

        assertThat(db.count("select count(*) from refund where invoice_id = ?", paid.invoiceId())).isZero();
        assertThat(db.count("select refund_reserved from invoice where id = ?", paid.invoiceId())).isZero();
        refund(paid.invoiceId(), 9_900, "refused", key).then().statusCode(201);
        assertThat(gateway.cancelsOf(paid.paymentKey())).hasSize(1);
    }

    @Test
    void aCancelTheGatewayRefusesFailsWithA422AndFreesTheAmount() {
        Paid paid = paidInvoice();
        // someone gave part of the money back at the gateway itself: the gateway refuses more than its balance
        client.cancel(paid.paymentKey(), 1_000, "by hand", "outside-" + UUID.randomUUID()).await().atMost(Duration.ofSeconds(20));

        refund(paid.invoiceId(), 9_900, "all of it", key()).then().statusCode(422).contentType("application/problem+json");

        assertThat(db.text("select status from refund where invoice_id = ?", paid.invoiceId())).isEqualTo("FAILED");
        assertThat(db.count("select refund_reserved from invoice where id = ?", paid.invoiceId())).isZero();
        refund(paid.invoiceId(), 8_900, "the balance", key()).then().statusCode(201);
    }

    @Test
    void whenTheDatabaseFailsAfterTheGatewayGaveTheMoneyBackTheJobRecordsIt() {
        Paid paid = paidInvoice();
        String key = key();
        failLedgerWritesOf(paid.subscriptionId());
        try {
            refund(paid.invoiceId(), 9_900, "db fault", key).then().statusCode(503).contentType("application/problem+json");
        } finally {
            db.execute("drop trigger refund_fault_" + suffix(paid.subscriptionId()) + " on ledger_entry");
            db.execute("drop function refund_fault_" + suffix(paid.subscriptionId()) + "()");
        }
        assertThat(gateway.cancelsOf(paid.paymentKey())).hasSize(1);
        // asked again: the first refund, still being settled
        refund(paid.invoiceId(), 9_900, "db fault", key).then().statusCode(202).body("status", equalTo("IN_PROGRESS"));

        ageRefunds(paid.invoiceId());
        reconcile();

        refund(paid.invoiceId(), 9_900, "db fault", key).then().statusCode(201).body("status", equalTo("SUCCEEDED"));
        assertThat(gateway.cancelsOf(paid.paymentKey())).hasSize(1);
        invoice(paid.invoiceId()).then().body("status", equalTo("REFUNDED"));
    }

    @Test
    void badRefundRequestsAreProblemsAndStoreNothing() {
        Paid paid = paidInvoice();
        for (long amount : new long[] {0, -100}) {
            refund(paid.invoiceId(), amount, "bad", key()).then().statusCode(400).contentType("application/problem+json");
        }
        refund(paid.invoiceId(), 9_901, "too much", key()).then().statusCode(422).contentType("application/problem+json");
        refund(UUID.randomUUID(), 100, "unknown", key()).then().statusCode(404).contentType("application/problem+json");
        given().auth().oauth2(Tokens.admin()).contentType(ContentType.JSON).body("{\"amount\":100,\"reason\":\"no key\"}")
                .when().post("/invoices/{id}/refunds", paid.invoiceId()).then().statusCode(400).contentType("application/problem+json");
        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).header("Idempotency-Key", key())
                .body("{\"amount\":100,\"reason\":\"my own\"}").when().post("/invoices/{id}/refunds", paid.invoiceId())
                .then().statusCode(403).contentType("application/problem+json");
        given().auth().oauth2(Tokens.admin()).contentType(ContentType.JSON).header("Idempotency-Key", key()).body("{\"amount\":")
                .when().post("/invoices/{id}/refunds", paid.invoiceId()).then().statusCode(400).contentType("application/problem+json");

        assertThat(db.count("select count(*) from refund where invoice_id = ?", paid.invoiceId())).isZero();
        assertThat(gateway.cancelsOf(paid.paymentKey())).isEmpty();
        invoice(paid.invoiceId()).then().body("status", equalTo("PAID")).body("refunded", equalTo(0));
    }

    /** A PRO subscription's paid first charge: its invoice and the gateway's key of the payment. */
    record Paid(UUID subscriptionId, UUID invoiceId, String paymentKey) {
    }

    private Paid paidInvoice() {
        UUID subscription = UUID.fromString(subscribe(user, Snowflakes.random(), "PRO", key).then().statusCode(201).extract().path("id"));
        UUID invoice = UUID.fromString((String) invoicesOf(subscription).get(0).get("id"));
        String paymentKey = db.text("select p.external_payment_key from payment p join invoice i on i.payment_id = p.id where i.id = ?", invoice);
        return new Paid(subscription, invoice, paymentKey);
    }

    private static Response invoice(UUID invoiceId) {
        return given().auth().oauth2(Tokens.admin()).when().get("/invoices/{id}", invoiceId);
    }

    private static String key() {
        return "refund-request-" + UUID.randomUUID();
    }

    /** Older than the test profile's settle-after (1 s): the job looks at them. */
    private void ageRefunds(UUID invoiceId) {
        db.execute("update refund set attempted_at = attempted_at - interval '1 minute' where invoice_id = ?", invoiceId);
    }

    /** Inserting a ledger entry of this subscription fails as a serialization failure does (a transient fault) until the trigger is dropped. */
    private void failLedgerWritesOf(UUID subscriptionId) {
        String name = "refund_fault_" + suffix(subscriptionId);
        db.execute("create function " + name + "() returns trigger language plpgsql as $$ begin "
                + "if new.subscription_id = '" + subscriptionId + "' then raise exception 'injected fault' using errcode = '40001'; end if; "
                + "return new; end; $$");
        db.execute("create trigger " + name + " before insert on ledger_entry for each row execute function " + name + "()");
    }

    private static String suffix(UUID id) {
        return id.toString().replace("-", "");
    }

    private PagedRun.Summary<RefundReconciliation.Result> reconcile() {
        try {
            return VertxContextSupport.subscribeAndAwait(() -> reconciliation.run());
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }
}
