package dev.umbra.billing.invoice;

import static dev.umbra.billing.BillingFixtures.distinctEvents;
import static dev.umbra.billing.BillingFixtures.refund;
import static dev.umbra.billing.BillingFixtures.subscribe;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.billing.PayingUserTest;
import dev.umbra.billing.payment.PaymentReconciliation;
import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.devstack.PaymentGatewaySandbox.Cancel;
import dev.umbra.devstack.PaymentGatewaySandbox.Status;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.platform.workqueue.PagedRun;
import dev.umbra.testing.Concurrently;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import dev.umbra.testing.LogLines;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.http.ContentType;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A charge that succeeds after its subscription moved on (an upgrade paid after the subscription was
 * canceled) is invoiced and given back in full by the service itself, once, whatever is lost on the way:
 * against devstack's gateway sandbox, whose own record of cancels is what "once" is checked against.
 */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.billing.invoice.AutomaticRefunds", message = "refused to give back")
// the gateway played unreachable: its guard reports each retry
@ExpectedLog(category = "dev.umbra.billing.gateway.GatewayGuards")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
@ExpectedLog(category = LogLines.POSTGRESQL, level = "ERROR", message = "^injected fault$")
class AutomaticRefundsIT extends PayingUserTest {

    @Inject
    AutomaticRefunds refunds;

    @Inject
    PaymentReconciliation reconciliation;

    @Inject
    MeterRegistry registry;

    /** An upgrade the gateway kept pending, paid only after the subscription was canceled: its invoice and its scheduled refund. */
    private record LateUpgrade(UUID subscriptionId, UUID invoiceId, String paymentKey, long amount) {
    }

    @Test
    void anUpgradePaidAfterTheSubscriptionWasCanceledIsGivenBackInFullOnce() {
        double succeededBefore = counted("succeeded");
        LateUpgrade late = lateUpgrade();
        assertThat(db.text("select status || ':' || amount || ':' || idempotency_key from refund where invoice_id = ?", late.invoiceId()))
                .isEqualTo("SCHEDULED:" + late.amount() + ":automatic");
        // the whole invoice is reserved for it: an operator cannot refund it a second time meanwhile, nor use its key
        refund(late.invoiceId(), 1, "by hand too", "operator-" + UUID.randomUUID()).then().statusCode(422);
        refund(late.invoiceId(), late.amount(), "the service's key", "automatic").then().statusCode(422);

        PagedRun.Summary<AutomaticRefunds.Result> run = run();

        assertThat(run.count(AutomaticRefunds.Result.SUCCEEDED)).isGreaterThanOrEqualTo(1);
        assertThat(refundStatus(late)).isEqualTo("SUCCEEDED");
        assertThat(gateway.cancelsOf(late.paymentKey())).singleElement().satisfies(cancel -> {
            assertThat(cancel.amount()).isEqualTo(late.amount());
            assertThat(cancel.idempotencyKey()).isEqualTo("refund-" + refundId(late));
            assertThat(cancel.reason()).startsWith("given back by the service: UPGRADE_CHARGED is not allowed on a CANCELED subscription");
        });
        given().auth().oauth2(Tokens.admin()).when().get("/invoices/{id}", late.invoiceId()).then().statusCode(200)
                .body("status", equalTo("REFUNDED"));
        // booked and given back: the subscription's balance is its first charge alone
        assertThat(db.text("select string_agg(kind || ':' || amount, ',' order by recorded_at, booked_at) from ledger_entry "
                + "where subscription_id = ?", late.subscriptionId())).isEqualTo("CHARGE:9900,CHARGE:" + late.amount() + ",REFUND:-" + late.amount());
        assertThat(counted("succeeded")).isEqualTo(succeededBefore + 1);
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.INVOICE))) {
            await().atMost(WAIT).until(() -> distinctEvents(topic, late.invoiceId().toString(), "RefundSucceeded") == 1);
        }

        long cancels = gateway.cancelAttempts();
        run();
        assertThat(gateway.cancelAttempts()).isEqualTo(cancels);
    }

    @Test
    void aCancelWhoseAnswerIsLostIsFoundByItsKeyAndNeverSentAgain() {
        LateUpgrade late = lateUpgrade();
        lostCancelFoundByTheNextRun(late);
        assertThat(db.text("select gateway_transaction_key from refund where invoice_id = ?", late.invoiceId()))
                .isEqualTo(gateway.cancelsOf(late.paymentKey()).get(0).transactionKey());
    }

    /** The first run's cancel happens and its answer is lost; the next run finds it at the gateway and sends nothing more. */
    private void lostCancelFoundByTheNextRun(LateUpgrade late) {
        gateway.resetAfterCancel(1);

        run();

        assertThat(refundStatus(late)).isEqualTo("SCHEDULED");
        assertThat(gateway.cancelsOf(late.paymentKey())).hasSize(1);
        long cancels = gateway.cancelAttempts();

        run();

        assertThat(refundStatus(late)).isEqualTo("SUCCEEDED");
        assertThat(gateway.cancelAttempts()).isEqualTo(cancels);
    }

    @Test
    void aCancelWhoseAnswerIsLostIsFoundByItsKeyOnAPaymentKnownByItsOrderAlone() {
        LateUpgrade late = lateUpgrade();
        // the DONE report that settled the payment named no key of it: the refund finds it by its order id
        db.execute("update payment set external_payment_key = null where subscription_id = ? and purpose = 'UPGRADE_PREMIUM'",
                late.subscriptionId());
        // after the first run the payment, cancelled whole, is CANCELED at the gateway: still the one that carries this refund's cancel
        lostCancelFoundByTheNextRun(late);
        given().auth().oauth2(Tokens.admin()).when().get("/invoices/{id}", late.invoiceId()).then().statusCode(200)
                .body("status", equalTo("REFUNDED"));
    }

    @Test
    void aDatabaseFaultAfterTheCancelLeavesItScheduledAndTheNextRunFindsTheCancelByItsKey() {
        LateUpgrade late = lateUpgrade();
        String fault = "refund_fault_" + late.invoiceId().toString().replace("-", "");
        db.execute("create function " + fault + "() returns trigger language plpgsql as $$ begin "
                + "if new.invoice_id = '" + late.invoiceId() + "' then raise exception 'injected fault' using errcode = '08006'; end if; "
                + "return new; end; $$");
        db.execute("create trigger " + fault + " before update on refund for each row execute function " + fault + "()");
        double succeededBefore = counted("succeeded");
        try {
            assertThat(run().unreachable()).isGreaterThanOrEqualTo(1);
            assertThat(refundStatus(late)).isEqualTo("SCHEDULED");
            assertThat(counted("succeeded")).as("a settlement rolled back is not counted").isEqualTo(succeededBefore);
            assertThat(gateway.cancelsOf(late.paymentKey())).hasSize(1);
        } finally {
            db.execute("drop trigger " + fault + " on refund");
            db.execute("drop function " + fault + "()");
        }
        long cancels = gateway.cancelAttempts();

        run();

        assertThat(refundStatus(late)).isEqualTo("SUCCEEDED");
        assertThat(gateway.cancelAttempts()).isEqualTo(cancels);
        assertThat(gateway.cancelsOf(late.paymentKey())).hasSize(1);
    }

    @Test
    void anUnreachableGatewayLeavesItScheduledUntilItIsBack() {
        LateUpgrade late = lateUpgrade();
        gateway.refuseConnections();

        PagedRun.Summary<AutomaticRefunds.Result> run = run();

        assertThat(run.unreachable() + run.count(AutomaticRefunds.Result.STILL_SCHEDULED)).isGreaterThanOrEqualTo(1);
        assertThat(refundStatus(late)).isEqualTo("SCHEDULED");
        assertThat(gateway.cancelsOf(late.paymentKey())).isEmpty();

        gateway.recover();
        circuits.resetAll();
        run();

        assertThat(refundStatus(late)).isEqualTo("SUCCEEDED");
        assertThat(gateway.cancelsOf(late.paymentKey())).extracting(Cancel::amount).containsExactly(late.amount());
    }

    @Test
    void aCancelTheGatewayRefusesIsLeftToAnOperatorWithTheAmountFreed() {
        double failedBefore = counted("failed");
        LateUpgrade late = lateUpgrade();
        gateway.refuseCancels(1);

        run();

        assertThat(db.text("select status || ':' || failure_message from refund where invoice_id = ?", late.invoiceId()))
                .startsWith("FAILED:").contains("FORBIDDEN_REQUEST");
        assertThat(counted("failed")).isEqualTo(failedBefore + 1);
        long cancels = gateway.cancelAttempts();
        run();
        assertThat(gateway.cancelAttempts()).isEqualTo(cancels);

        // the operator gives it back by hand: the whole amount is refundable again
        refund(late.invoiceId(), late.amount(), "by hand", "operator-" + UUID.randomUUID()).then().statusCode(201);
        assertThat(gateway.cancelsOf(late.paymentKey())).extracting(Cancel::amount).containsExactly(late.amount());
    }

    @Test
    void twoReplicasRunningAtOnceGiveItBackOnce() throws Exception {
        List<LateUpgrade> late = List.of(lateUpgrade(), lateUpgrade());

        List<PagedRun.Summary<AutomaticRefunds.Result>> runs = Concurrently.run(2, run -> onContext(() -> refunds.run()));

        assertThat(runs).allSatisfy(summary -> assertThat(summary.unreachable()).isZero());
        for (LateUpgrade upgrade : late) {
            assertThat(refundStatus(upgrade)).isEqualTo("SUCCEEDED");
            assertThat(gateway.cancelsOf(upgrade.paymentKey())).extracting(Cancel::amount).containsExactly(upgrade.amount());
            // the gateway refuses a second whole-amount cancel whatever is sent: what tells is that every request was one cancel's
            assertThat(gateway.received().stream().filter(r -> r.isCancel() && r.path().contains(upgrade.paymentKey()))
                    .map(PaymentGatewaySandbox.Received::idempotencyKey).distinct()).as("cancel keys for %s", upgrade.paymentKey()).hasSize(1);
            assertThat(db.count("select count(*) from ledger_entry where kind = 'REFUND' and subscription_id = ?", upgrade.subscriptionId()))
                    .isOne();
        }
    }

    /**
     * A PRO subscription upgraded to PREMIUM while the gateway keeps the charge pending, canceled, then the
     * charge completes and the reconciliation job settles it: SUCCEEDED, invoiced, its refund scheduled.
     */
    private LateUpgrade lateUpgrade() {
        UUID subscription = UUID.fromString(subscribe(user, Snowflakes.random(), "PRO", key).then().statusCode(201).extract().path("id"));
        gateway.keepPending(1);
        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body("{\"planCode\":\"PREMIUM\"}")
                .when().put("/subscriptions/{id}/plan", subscription).then().statusCode(202);
        given().auth().oauth2(Tokens.user(user.toString())).when().delete("/subscriptions/{id}", subscription).then().statusCode(200);
        String paymentKey = db.text("select external_payment_key from payment where subscription_id = ? and purpose = 'UPGRADE_PREMIUM'",
                subscription);
        gateway.settle(paymentKey, Status.DONE);
        // older than the test profile's settle-after: the reconciliation job looks it up and finds it paid
        db.execute("update payment set attempted_at = attempted_at - interval '1 minute' where subscription_id = ? "
                + "and purpose = 'UPGRADE_PREMIUM'", subscription);
        onContext(() -> reconciliation.run());
        assertThat(db.text("select status from payment where subscription_id = ? and purpose = 'UPGRADE_PREMIUM'", subscription))
                .isEqualTo("SUCCEEDED");
        assertThat(db.text("select status || ':' || plan_code from subscription where id = ?", subscription)).isEqualTo("CANCELED:PRO");
        UUID invoice = UUID.fromString(db.text("select i.id::text from invoice i join payment p on p.id = i.payment_id "
                + "where p.subscription_id = ? and p.purpose = 'UPGRADE_PREMIUM'", subscription));
        long amount = db.count("select total from invoice where id = ?", invoice);
        return new LateUpgrade(subscription, invoice, paymentKey, amount);
    }

    private String refundStatus(LateUpgrade late) {
        return db.text("select status from refund where invoice_id = ?", late.invoiceId());
    }

    private String refundId(LateUpgrade late) {
        return db.text("select id::text from refund where invoice_id = ?", late.invoiceId());
    }

    private double counted(String outcome) {
        return registry.get("umbra.billing.refunds").tags("trigger", "automatic", "outcome", outcome).counter().count();
    }

    private PagedRun.Summary<AutomaticRefunds.Result> run() {
        return onContext(() -> refunds.run());
    }

    private static <T> T onContext(Supplier<Uni<T>> work) {
        try {
            return VertxContextSupport.subscribeAndAwait(work::get);
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }
}
