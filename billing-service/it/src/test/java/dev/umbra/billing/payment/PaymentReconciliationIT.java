package dev.umbra.billing.payment;

import static dev.umbra.billing.BillingFixtures.distinctEvents;
import static dev.umbra.billing.payment.GatewayCharges.WAIT;
import static dev.umbra.billing.payment.GatewayCharges.outcomes;
import static dev.umbra.billing.payment.GatewayCharges.paymentChanges;
import static dev.umbra.billing.payment.GatewayCharges.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.umbra.billing.gateway.ChargeOutcome;
import dev.umbra.devstack.PaymentGatewaySandbox.Status;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.platform.workqueue.PagedRun;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.LogLines;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The reconciliation job against devstack's gateway sandbox: what no callback settled, it settles, once. */
@QuarkusTest
// the amount-mismatch case is played on purpose: the settlement says the charge is to be given back
@ExpectedLog(category = "dev.umbra.billing.payment.PaymentSettlement", message = "to be given back")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
@ExpectedLog(category = LogLines.POSTGRESQL, level = "ERROR", message = "^injected fault$")
class PaymentReconciliationIT extends SandboxCallingBack {

    /** Older than the test profile's settle-after (1 s): the job looks at it. */
    private static final Duration SETTLED_AFTER = Duration.ofSeconds(5);

    @Inject
    PaymentReconciliation reconciliation;


    @Test
    void aLostCallbackIsMadeUpByTheJobLookingTheKeyUp() {
        sandbox.loseCallbacks(1);
        String paymentKey = ((ChargeOutcome.Accepted) gateway.charge("pay-lost-" + System.nanoTime(), 9_900)).paymentKey();
        PaymentRows.FirstCharge payment = inProgressAt(paymentKey);

        PagedRun.Summary<PaymentSettlement.Result> run = reconcile();

        assertThat(run.count(PaymentSettlement.Result.SUCCEEDED)).isGreaterThanOrEqualTo(1);
        assertThat(status(db, payment.paymentId())).isEqualTo("SUCCEEDED");
        assertThat(paymentChanges(db, payment.paymentId())).isEqualTo(1);
        assertThat(outcomes(db, payment.subscriptionId())).isEqualTo(1);
        assertThat(sandbox.callbacks()).singleElement().satisfies(c -> assertThat(c.delivered()).isFalse());
    }

    @Test
    void aChargeWhoseAnswerCameTooLateIsFoundByItsOrderIdAndChargedOnce() {
        PaymentRows.FirstCharge payment = PaymentRows.inProgress(db, 9_900, null, Instant.now().minus(SETTLED_AFTER));
        sandbox.loseCallbacks(1);
        sandbox.answerLate(1, Duration.ofSeconds(5));
        assertThat(gateway.charge(payment)).isInstanceOf(ChargeOutcome.Uncertain.class);

        reconcile();

        assertThat(status(db, payment.paymentId())).isEqualTo("SUCCEEDED");
        assertThat(db.text("select external_payment_key from payment where id = ?", payment.paymentId()))
                .isEqualTo(sandbox.chargesOf(payment.orderId()).get(0).paymentKey());
        assertThat(sandbox.chargesOf(payment.orderId())).hasSize(1);
        assertThat(outcomes(db, payment.subscriptionId())).isEqualTo(1);
    }

    @Test
    void aPendingChargeWaitsForTheNextRunUntilTheWindowHasPassedThenFails() {
        sandbox.keepPending(1);
        String paymentKey = ((ChargeOutcome.Accepted) gateway.charge("pay-pending-" + System.nanoTime(), 9_900)).paymentKey();
        PaymentRows.FirstCharge payment = inProgressAt(paymentKey);

        reconcile();
        assertThat(status(db, payment.paymentId())).isEqualTo("IN_PROGRESS");
        assertThat(paymentChanges(db, payment.paymentId())).isZero();

        db.execute("update payment set attempted_at = now() - interval '5 minutes 1 second' where id = ?", payment.paymentId());
        reconcile();

        assertThat(status(db, payment.paymentId())).isEqualTo("FAILED");
        assertThat(db.text("select failure_message from payment where id = ?", payment.paymentId())).startsWith("still pending");
        assertThat(outcomes(db, payment.subscriptionId())).isEqualTo(1);
        assertThat(db.text("select status from subscription where id = ?", payment.subscriptionId())).isEqualTo("CANCELED");
    }

    @Test
    void aChargeTheGatewayNeverReceivedFailsWhetherItsKeyIsKnownOrNot() {
        PaymentRows.FirstCharge byOrder = PaymentRows.inProgress(db, 9_900, null, Instant.now().minus(SETTLED_AFTER));
        PaymentRows.FirstCharge byKey = inProgressAt("pay_unknown_" + System.nanoTime());
        PaymentRows.FirstCharge tooYoung = PaymentRows.inProgress(db, 9_900, null, Instant.now().plusSeconds(60));

        reconcile();

        for (PaymentRows.FirstCharge payment : List.of(byOrder, byKey)) {
            assertThat(status(db, payment.paymentId())).isEqualTo("FAILED");
            assertThat(db.text("select failure_message from payment where id = ?", payment.paymentId())).contains("never arrived");
            assertThat(outcomes(db, payment.subscriptionId())).isEqualTo(1);
        }
        // its charge call may still be under way: not looked at before settle-after
        assertThat(status(db, tooYoung.paymentId())).isEqualTo("IN_PROGRESS");
        db.execute("update payment set status = 'FAILED', version = version + 1 where id = ?", tooYoung.paymentId());
    }

    @Test
    void aChargeOfAnotherAmountIsNeverTakenAsPaid() {
        String orderId = "pay-mismatch-" + System.nanoTime();
        sandbox.loseCallbacks(1);
        gateway.charge(orderId, 9_900);
        PaymentRows.FirstCharge payment = PaymentRows.inProgress(db, 19_900, null, Instant.now().minus(SETTLED_AFTER));
        db.execute("update payment set order_id = ? where id = ?", orderId, payment.paymentId());

        reconcile();

        assertThat(status(db, payment.paymentId())).isEqualTo("FAILED");
        assertThat(db.text("select failure_message from payment where id = ?", payment.paymentId())).startsWith("AMOUNT_MISMATCH");
        assertThat(db.count("select paid_amount from payment where id = ?", payment.paymentId())).isZero();
        assertThat(outcomes(db, payment.subscriptionId())).isEqualTo(1);
    }

    @Test
    void callbacksAndTwoJobRunsRacingOverTheSamePaymentsChangeEachOnce() throws Exception {
        int count = 6;
        sandbox.keepPending(count);
        List<String> keys = new ArrayList<>();
        List<PaymentRows.FirstCharge> payments = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String key = ((ChargeOutcome.Accepted) gateway.charge("pay-race-" + i + "-" + System.nanoTime(), 9_900)).paymentKey();
            keys.add(key);
            payments.add(inProgressAt(key));
        }

        ExecutorService replicas = replicas();
        keys.forEach(key -> sandbox.settle(key, Status.DONE));
        while (payments.stream().anyMatch(p -> status(db, p.paymentId()).equals("IN_PROGRESS"))) {
            CompletableFuture<PagedRun.Summary<PaymentSettlement.Result>> one = CompletableFuture.supplyAsync(this::reconcile, replicas);
            CompletableFuture<PagedRun.Summary<PaymentSettlement.Result>> other = CompletableFuture.supplyAsync(this::reconcile, replicas);
            one.get();
            other.get();
        }
        replicas.shutdown();

        await().atMost(WAIT).until(() -> sandbox.callbacks().stream().filter(c -> c.answer() == 200).count() == count);
        for (int i = 0; i < count; i++) {
            PaymentRows.FirstCharge payment = payments.get(i);
            assertThat(status(db, payment.paymentId())).isEqualTo("SUCCEEDED");
            assertThat(paymentChanges(db, payment.paymentId())).isEqualTo(1);
            assertThat(outcomes(db, payment.subscriptionId())).isEqualTo(1);
            assertThat(db.text("select status from webhook_events where payload ->> 'paymentKey' = ?", keys.get(i))).isIn("completed", "skipped");
            assertThat(db.count("select count(*) from invoice where payment_id = ?", payment.paymentId())).isOne();
        }
        // whoever won, each payment's invoice was announced once
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.INVOICE))) {
            for (PaymentRows.FirstCharge payment : payments) {
                String invoice = db.text("select id::text from invoice where payment_id = ?", payment.paymentId());
                await().atMost(WAIT).until(() -> distinctEvents(topic, invoice, "InvoiceGenerated") == 1);
            }
        }
    }

    @Test
    void aDatabaseFaultWhileInvoicingLeavesThePaymentInProgressUntilANextRunSettlesItWithItsInvoice() {
        sandbox.loseCallbacks(1);
        String paymentKey = ((ChargeOutcome.Accepted) gateway.charge("pay-fault-" + System.nanoTime(), 9_900)).paymentKey();
        PaymentRows.FirstCharge payment = inProgressAt(paymentKey);
        String fault = "invoice_fault_" + payment.subscriptionId().toString().replace("-", "");
        db.execute("create function " + fault + "() returns trigger language plpgsql as $$ begin "
                + "if new.subscription_id = '" + payment.subscriptionId() + "' then raise exception 'injected fault' using errcode = '40001'; end if; "
                + "return new; end; $$");
        db.execute("create trigger " + fault + " before insert on invoice for each row execute function " + fault + "()");
        try {
            PagedRun.Summary<PaymentSettlement.Result> failed = reconcile();
            assertThat(failed.unreachable()).isGreaterThanOrEqualTo(1);
            // no success without its invoice: the settlement rolled back whole
            assertThat(status(db, payment.paymentId())).isEqualTo("IN_PROGRESS");
            assertThat(outcomes(db, payment.subscriptionId())).isZero();
        } finally {
            db.execute("drop trigger " + fault + " on invoice");
            db.execute("drop function " + fault + "()");
        }

        reconcile();

        assertThat(status(db, payment.paymentId())).isEqualTo("SUCCEEDED");
        assertThat(db.count("select count(*) from invoice where payment_id = ?", payment.paymentId())).isOne();
        assertThat(db.count("select count(*) from ledger_entry where kind = 'CHARGE' and subscription_id = ?", payment.subscriptionId())).isOne();
    }

    @Test
    void twoReplicasNeverSettleOnePaymentTwice() throws Exception {
        int count = 8;
        sandbox.loseCallbacks(count);
        List<PaymentRows.FirstCharge> payments = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            PaymentRows.FirstCharge payment = PaymentRows.inProgress(db, 9_900, null, Instant.now().minus(SETTLED_AFTER));
            ChargeOutcome charged = gateway.charge(payment);
            if (i % 2 == 0) {
                // half of them with the key stored (looked up by key), half without (looked up by order id)
                db.execute("update payment set external_payment_key = ? where id = ?", ((ChargeOutcome.Accepted) charged).paymentKey(),
                        payment.paymentId());
            }
            payments.add(payment);
        }

        // the queue's one run item, due now and held by nobody (polling is off in the test profile: nothing else puts it in line)
        db.execute("insert into work_item (queue, item_key, payload, status, attempts, due_at, ready_at, created_at) "
                + "values (?, 'run', '{}', 'pending', 0, now(), now(), now()) on conflict (queue, item_key) do update "
                + "set status = 'pending', due_at = now(), ready_at = now(), lease_until = null, lease_token = null, finished_at = null", PaymentReconciliation.QUEUE);
        ExecutorService replicas = replicas();
        // two replicas' scheduled rounds: the lease lets exactly one of them run
        CompletableFuture<Integer> round = CompletableFuture.supplyAsync(() -> onVertx(() -> reconciliation.runOnce()), replicas);
        CompletableFuture<Integer> otherRound = CompletableFuture.supplyAsync(() -> onVertx(() -> reconciliation.runOnce()), replicas);
        // and two runs whose leases overlap (a run that outlived its lease): only the payments' versions stand between them
        CompletableFuture<PagedRun.Summary<PaymentSettlement.Result>> run = CompletableFuture.supplyAsync(this::reconcile, replicas);
        CompletableFuture<PagedRun.Summary<PaymentSettlement.Result>> otherRun = CompletableFuture.supplyAsync(this::reconcile, replicas);

        assertThat(round.get() + otherRound.get()).as("rounds that claimed the run item").isOne();
        run.get();
        otherRun.get();
        replicas.shutdown();
        for (PaymentRows.FirstCharge payment : payments) {
            assertThat(status(db, payment.paymentId())).isEqualTo("SUCCEEDED");
            assertThat(paymentChanges(db, payment.paymentId())).isEqualTo(1);
            assertThat(outcomes(db, payment.subscriptionId())).isEqualTo(1);
        }
        assertThat(sandbox.charges()).hasSize(count);
    }

    /** Threads of their own: the common pool has a single thread on a two-core machine, and the "replicas" must run side by side. */
    private static ExecutorService replicas() {
        return Executors.newFixedThreadPool(4);
    }

    private PaymentRows.FirstCharge inProgressAt(String paymentKey) {
        return PaymentRows.inProgress(db, 9_900, paymentKey, Instant.now().minus(SETTLED_AFTER));
    }

    private PagedRun.Summary<PaymentSettlement.Result> reconcile() {
        return onVertx(() -> reconciliation.run());
    }

    private static <T> T onVertx(Supplier<io.smallrye.mutiny.Uni<T>> work) {
        try {
            return VertxContextSupport.subscribeAndAwait(work::get);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
