package dev.umbra.billing.payment;

import static dev.umbra.billing.BillingFixtures.distinctEvents;
import static dev.umbra.billing.BillingFixtures.ofAggregate;
import static dev.umbra.billing.payment.GatewayCharges.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.umbra.billing.gateway.ChargeOutcome;
import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.devstack.PaymentGatewaySandbox.Cancel;
import dev.umbra.devstack.PaymentGatewaySandbox.Status;
import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.platform.workqueue.PagedRun;
import dev.umbra.testing.Concurrently;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.LogLines;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Money the gateway took for payments that FAILED here is given back, once, whatever is lost on the way:
 * against devstack's gateway sandbox, with the reconciliation job failing the payments as it does.
 */
@QuarkusTest
// every case here is money taken for a failed payment, which the settlement reports
@ExpectedLog(category = "dev.umbra.billing.payment.PaymentSettlement", message = "to be given back")
@ExpectedLog(category = "dev.umbra.billing.payment.StrayChargeReturns", message = "refused to give back")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
@ExpectedLog(category = LogLines.POSTGRESQL, level = "ERROR", message = "^injected fault$")
class StrayChargeReturnsIT extends SandboxCallingBack {

    private static final Duration SETTLED_AFTER = Duration.ofSeconds(5);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    PaymentReconciliation reconciliation;


    @Inject
    StrayChargeReturns returns;

    @Inject
    MeterRegistry registry;

    @Test
    void aChargeOfAnotherAmountIsGivenBackInFullOnce() throws Exception {
        Mismatch mismatch = mismatch();

        run();

        assertThat(strayStatus(mismatch.payment())).isEqualTo("RETURNED");
        assertThat(sandbox.cancelsOf(mismatch.paymentKey())).singleElement().satisfies(cancel -> {
            assertThat(cancel.amount()).isEqualTo(9_900);
            assertThat(cancel.idempotencyKey()).isEqualTo("stray-" + strayId(mismatch.payment()));
        });
        assertThat(db.count("select returned_amount from stray_charge where payment_id = ?", mismatch.payment().paymentId())).isEqualTo(9_900);
        // the money never entered the books: nothing to book when it goes back, an event to tell the audit log
        assertThat(db.count("select count(*) from ledger_entry where subscription_id = ?", mismatch.payment().subscriptionId())).isZero();
        String subscription = mismatch.payment().subscriptionId().toString();
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(Duration.ofSeconds(60)).until(() -> distinctEvents(topic, subscription, "StrayChargeReturned") == 1);
            JsonNode returned = JSON.readTree(KafkaProbe.value(ofAggregate(topic, subscription).stream()
                    .filter(r -> KafkaProbe.header(r, EventHeaders.EVENT_TYPE).equals("StrayChargeReturned")).findFirst().orElseThrow()));
            assertThat(returned.path("amount").decimalValue().longValueExact()).isEqualTo(9_900);
            assertThat(returned.path("currency").asText()).isEqualTo("KRW");
            assertThat(returned.path("stray_charge_id").asText()).isEqualTo(strayId(mismatch.payment()));
            assertThat(returned.path("payment_id").asText()).isEqualTo(mismatch.payment().paymentId().toString());
        }

        long cancels = sandbox.cancelAttempts();
        run();
        assertThat(sandbox.cancelAttempts()).isEqualTo(cancels);
        assertThat(status(db, mismatch.payment().paymentId())).isEqualTo("FAILED");
    }

    @Test
    void aChargeThatCompletesAfterThePaymentWasGivenUpIsGivenBack() {
        sandbox.keepPending(1);
        String paymentKey = ((ChargeOutcome.Accepted) gateway.charge("pay-late-done-" + System.nanoTime(), 9_900)).paymentKey();
        PaymentRows.FirstCharge payment = PaymentRows.inProgress(db, 9_900, paymentKey, Instant.now().minus(Duration.ofMinutes(6)));
        reconcile();
        assertThat(status(db, payment.paymentId())).isEqualTo("FAILED");
        assertThat(strayStatus(payment)).isEqualTo("WATCHING");

        // still pending: looked at, nothing sent, looked at again later
        run();
        assertThat(strayStatus(payment)).isEqualTo("WATCHING");
        assertThat(sandbox.cancelsOf(paymentKey)).isEmpty();
        assertThat(db.count("select looks from stray_charge where payment_id = ?", payment.paymentId())).isOne();

        // the issuer completes it after all, and calls back
        sandbox.settle(paymentKey, Status.DONE);
        lookNow(payment);
        run();

        assertThat(strayStatus(payment)).isEqualTo("RETURNED");
        assertThat(sandbox.cancelsOf(paymentKey)).singleElement().satisfies(cancel -> assertThat(cancel.amount()).isEqualTo(9_900));
    }

    @Test
    void aCancelWhoseAnswerIsLostIsFoundByItsKeyAndNeverSentAgain() {
        Mismatch mismatch = mismatch();
        sandbox.resetAfterCancel(1);
        long cancelsBefore = sandbox.cancelAttempts();

        // the payment looked up again right after the lost answer shows our cancel
        run();

        assertThat(strayStatus(mismatch.payment())).isEqualTo("RETURNED");
        assertThat(sandbox.cancelAttempts()).isEqualTo(cancelsBefore + 1);
        assertThat(sandbox.cancelsOf(mismatch.paymentKey())).hasSize(1);

        lookNow(mismatch.payment());
        run();
        assertThat(sandbox.cancelAttempts()).isEqualTo(cancelsBefore + 1);
    }

    @Test
    void aDatabaseFaultAfterTheCancelLeavesItWatchedAndTheNextLookFindsTheCancelByItsKey() {
        Mismatch mismatch = mismatch();
        String fault = "stray_fault_" + mismatch.payment().paymentId().toString().replace("-", "");
        db.execute("create function " + fault + "() returns trigger language plpgsql as $$ begin "
                + "if new.payment_id = '" + mismatch.payment().paymentId() + "' then raise exception 'injected fault' using errcode = '08006'; end if; "
                + "return new; end; $$");
        db.execute("create trigger " + fault + " before update on stray_charge for each row execute function " + fault + "()");
        try {
            assertThat(run().unreachable()).isGreaterThanOrEqualTo(1);
            assertThat(strayStatus(mismatch.payment())).isEqualTo("WATCHING");
            assertThat(sandbox.cancelsOf(mismatch.paymentKey())).hasSize(1);
        } finally {
            db.execute("drop trigger " + fault + " on stray_charge");
            db.execute("drop function " + fault + "()");
        }
        long cancels = sandbox.cancelAttempts();

        run();

        assertThat(strayStatus(mismatch.payment())).isEqualTo("RETURNED");
        assertThat(sandbox.cancelAttempts()).isEqualTo(cancels);
        assertThat(sandbox.cancelsOf(mismatch.paymentKey())).hasSize(1);
    }

    @Test
    void aCancelRefusedAsInFlightWhileTheGatewayCarriedItOutIsRecordedReturnedNotLeftToAnOperator() {
        Mismatch mismatch = mismatch();
        // another replica's cancel with the same key: carried out, and this one answered 409
        sandbox.answerCancelInFlight(1);
        double refusedBefore = refused();

        run();

        assertThat(strayStatus(mismatch.payment())).isEqualTo("RETURNED");
        assertThat(sandbox.cancelsOf(mismatch.paymentKey())).singleElement().satisfies(cancel -> {
            assertThat(cancel.amount()).isEqualTo(9_900);
            assertThat(cancel.idempotencyKey()).isEqualTo("stray-" + strayId(mismatch.payment()));
        });
        assertThat(refused()).isEqualTo(refusedBefore);
    }

    @Test
    void aCancelTheGatewayRefusesIsLeftToAnOperatorAndNeverSentAgain() {
        Mismatch mismatch = mismatch();
        sandbox.refuseCancels(1);
        double refusedBefore = refused();

        run();

        assertThat(strayStatus(mismatch.payment())).isEqualTo("REFUSED");
        assertThat(db.text("select detail from stray_charge where payment_id = ?", mismatch.payment().paymentId()))
                .contains("403", "FORBIDDEN_REQUEST");
        assertThat(sandbox.cancelsOf(mismatch.paymentKey())).isEmpty();
        assertThat(refused()).isEqualTo(refusedBefore + 1);
        long cancels = sandbox.cancelAttempts();

        lookNow(mismatch.payment());
        run();

        assertThat(strayStatus(mismatch.payment())).isEqualTo("REFUSED");
        assertThat(sandbox.cancelAttempts()).isEqualTo(cancels);
    }

    @Test
    void aPaymentTheGatewayNeverHadIsWatchedUntilItsWatchEndsThenNothingWasTaken() {
        PaymentRows.FirstCharge payment = PaymentRows.inProgress(db, 9_900, null, Instant.now().minus(SETTLED_AFTER));
        reconcile();
        assertThat(status(db, payment.paymentId())).isEqualTo("FAILED");

        run();
        assertThat(strayStatus(payment)).isEqualTo("WATCHING");

        db.execute("update stray_charge set watch_until = now() - interval '1 second', next_look_at = now() where payment_id = ?",
                payment.paymentId());
        run();

        assertThat(strayStatus(payment)).isEqualTo("NOTHING_TAKEN");
        assertThat(sandbox.cancelAttempts()).isZero();
    }

    @Test
    void twoReplicasRunningAtOnceGiveEachChargeBackOnce() throws Exception {
        List<Mismatch> mismatches = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            mismatches.add(mismatch());
        }

        // both runs released at the same moment
        Concurrently.run(2, replica -> run());

        for (Mismatch mismatch : mismatches) {
            assertThat(strayStatus(mismatch.payment())).isEqualTo("RETURNED");
            List<Cancel> cancels = sandbox.cancelsOf(mismatch.paymentKey());
            assertThat(cancels).singleElement().satisfies(cancel -> assertThat(cancel.amount()).isEqualTo(9_900));
            // the gateway takes a whole-amount cancel once whatever is sent: what tells is that every request asked for one
            // cancel, under one key (two keys would be two cancels at a gateway that takes partial ones)
            assertThat(sandbox.received().stream().filter(r -> r.isCancel() && r.path().contains(mismatch.paymentKey()))
                    .map(PaymentGatewaySandbox.Received::idempotencyKey).distinct()).as("cancel keys for %s", mismatch.paymentKey()).hasSize(1);
        }
    }

    /** A payment of 19,900 whose order the gateway charged 9,900 (callback lost): reconciliation fails it and watches the 9,900. */
    private record Mismatch(PaymentRows.FirstCharge payment, String paymentKey) {
    }

    private Mismatch mismatch() {
        String orderId = "pay-stray-" + UUID.randomUUID();
        sandbox.loseCallbacks(1);
        String paymentKey = ((ChargeOutcome.Accepted) gateway.charge(orderId, 9_900)).paymentKey();
        PaymentRows.FirstCharge payment = PaymentRows.inProgress(db, 19_900, null, Instant.now().minus(SETTLED_AFTER));
        db.execute("update payment set order_id = ? where id = ?", orderId, payment.paymentId());
        reconcile();
        assertThat(status(db, payment.paymentId())).isEqualTo("FAILED");
        assertThat(strayStatus(payment)).isEqualTo("WATCHING");
        return new Mismatch(payment, paymentKey);
    }

    private String strayStatus(PaymentRows.FirstCharge payment) {
        return db.text("select status from stray_charge where payment_id = ?", payment.paymentId());
    }

    private String strayId(PaymentRows.FirstCharge payment) {
        return db.text("select id::text from stray_charge where payment_id = ?", payment.paymentId());
    }

    private double refused() {
        var counter = registry.find("umbra.billing.stray.charges").tag("status", "refused").counter();
        return counter == null ? 0 : counter.count();
    }

    private void lookNow(PaymentRows.FirstCharge payment) {
        db.execute("update stray_charge set next_look_at = now() where payment_id = ?", payment.paymentId());
    }

    private void reconcile() {
        onVertx(() -> reconciliation.run());
    }

    private PagedRun.Summary<StrayChargeReturns.Result> run() {
        return onVertx(() -> returns.run());
    }

    private static <T> T onVertx(Supplier<io.smallrye.mutiny.Uni<T>> work) {
        try {
            return VertxContextSupport.subscribeAndAwait(work::get);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
