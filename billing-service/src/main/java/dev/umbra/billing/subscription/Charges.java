package dev.umbra.billing.subscription;

import dev.umbra.billing.billingkey.BillingKey;
import dev.umbra.billing.billingkey.BillingKeyCharge;
import dev.umbra.billing.billingkey.BillingKeyService;
import dev.umbra.billing.gateway.ChargeOutcome;
import dev.umbra.billing.gateway.PaymentGatewayClient;
import dev.umbra.billing.gateway.PaymentGatewayClient.ChargeRequest;
import dev.umbra.billing.gateway.PaymentGatewaySettings;
import dev.umbra.billing.payment.GatewayReport;
import dev.umbra.billing.payment.Payment;
import dev.umbra.billing.payment.PaymentMetrics;
import dev.umbra.billing.payment.PaymentOutcomes;
import dev.umbra.billing.payment.PaymentSettlement;
import dev.umbra.billing.payment.PaymentStatus;
import dev.umbra.billing.payment.StrayCharges;
import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.storage.RowDeletes;
import dev.umbra.platform.storage.StorageFaults;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.LockModeType;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * One charge of a payment attempt that a transaction already stored as IN_PROGRESS: the gateway is
 * called outside any transaction, then a second transaction applies what its answer proves. A final
 * answer (DONE, ABORTED, a rejection) settles the payment at once, with its consequence for the
 * subscription ({@link PaymentOutcomes}); an answer still IN_PROGRESS, or none at all (uncertain), leaves
 * it IN_PROGRESS for the gateway's callback or the reconciliation job. Never sent twice from here.
 */
@ApplicationScoped
public class Charges {

    /**
     * An attempt ready to be sent; {@code storedBefore}: stored by an earlier try, which may have sent it. Carries the gateway's
     * billing key in memory only; shows it nowhere.
     */
    public record Prepared(UUID paymentId, UUID subscriptionId, ChargeRequest request, boolean storedBefore, long sendBefore) {

        @Override
        public String toString() {
            return "Prepared[payment=" + paymentId + ", subscription=" + subscriptionId + "]";
        }
    }

    /** What became of the attempt; {@code paymentStatus} is null when it was rolled back (surely never sent). */
    public record Settled(ChargeOutcome outcome, PaymentStatus paymentStatus, Subscription subscription) {
    }

    /**
     * A charge that surely never reached the gateway: its attempt fails (and says so), or is sent again by the caller's next
     * try (rolled back when this try stored it and the connection never opened; else kept, to be sent as it is).
     */
    public enum WhenNotSent { FAIL, SEND_AGAIN }

    private final PaymentGatewayClient gateway;
    private final BillingKeyService billingKeys;
    private final PaymentOutcomes outcomes;
    private final Clock clock;
    private final PaymentMetrics metrics;
    private final PaymentSettlement settlement;
    private final StrayCharges strays;
    private final PaymentGatewaySettings gatewaySettings;

    public Charges(PaymentGatewayClient gateway, BillingKeyService billingKeys, PaymentOutcomes outcomes, Clock clock,
            PaymentMetrics metrics, PaymentSettlement settlement, StrayCharges strays, PaymentGatewaySettings gatewaySettings) {
        this.gateway = gateway;
        this.billingKeys = billingKeys;
        this.outcomes = outcomes;
        this.clock = clock;
        this.metrics = metrics;
        this.settlement = settlement;
        this.strays = strays;
        this.gatewaySettings = gatewaySettings;
    }

    /**
     * Whether any charge of the subscription is in flight (a renewal, an upgrade): what it was priced for must still
     * hold when it settles, so nothing that changes the price of a period is accepted meanwhile. Asked with the
     * subscription row locked, so the answer holds until the transaction ends; the unique index
     * {@code one_payment_in_flight} stays the backstop.
     */
    static Uni<Boolean> anyInFlight(UUID subscriptionId) {
        return inFlight(subscriptionId).map(payments -> !payments.isEmpty());
    }

    /** The subscription's charges in flight, asked like {@link #anyInFlight}. */
    static Uni<List<Payment>> inFlight(UUID subscriptionId) {
        return Payment.list("subscriptionId = ?1 and status = ?2", subscriptionId, PaymentStatus.IN_PROGRESS);
    }

    /** The attempts at {@code purpose} for {@code period} so far (an upgrade's next one is numbered from them), asked like {@link #anyInFlight}. */
    static Uni<Attempts> attempts(UUID subscriptionId, int period, String purpose) {
        return Payment.<Payment>list("subscriptionId = ?1 and period = ?2 and purpose = ?3", subscriptionId, period, purpose)
                .map(payments -> new Attempts(payments.size(), payments.stream().anyMatch(p -> p.status == PaymentStatus.SUCCEEDED)));
    }

    record Attempts(int count, boolean succeeded) {
    }

    /** Inside the transaction that stored {@code payment}: what the charge will send. */
    Uni<Prepared> prepare(Payment payment, BillingKey key, String orderName) {
        return prepare(payment, key, orderName, false);
    }

    /** Inside a transaction that found {@code payment} stored by an earlier try: what sending it again as stored will send. */
    Uni<Prepared> prepareAgain(Payment payment, BillingKey key, String orderName) {
        return prepare(payment, key, orderName, true);
    }

    private Uni<Prepared> prepare(Payment payment, BillingKey key, String orderName, boolean storedBefore) {
        // the key's row is locked by the caller's transaction: a delete waits for it, then finds the charge on its way and
        // refuses, until the answer is applied or, should that never happen, the longest call is over; and no try of the call
        // starts so late that it could outlast that (a slow commit, a wait for a connection, a pause eat into the time)
        PaymentGatewaySettings.Client client = gatewaySettings.payment();
        long sendBefore = System.nanoTime() + client.lastTryStartsWithin().toNanos();
        ChargeRequest request = new ChargeRequest(billingKeys.reveal(key).value(), key.userId.toString(), payment.orderId,
                payment.idempotencyKey, payment.amount, orderName);
        return BillingKeyCharge.onItsWay(payment.id, key.id, client.longestCall())
                .replaceWith(new Prepared(payment.id, payment.subscriptionId, request, storedBefore, sendBefore));
    }

    /**
     * Sends the charge and applies its answer. Applying it again after a lost race (the callback settled
     * the payment meanwhile) finds the payment settled and changes nothing.
     */
    Uni<Settled> send(Prepared prepared, WhenNotSent whenNotSent) {
        return gateway.charge(prepared.request(), prepared.sendBefore())
                .invoke(metrics::chargeAttempt)
                .chain(outcome -> Uni.createFrom().deferred(() -> settle(prepared, outcome, whenNotSent))
                        // the gateway's callback settles the same payment at the same moment; both lock the payment row
                        // first, so the later one waits and finds it settled; a transaction the server rolled back runs again
                        .onFailure(e -> StorageFaults.lostRace(e) || StorageFaults.rolledBackByServer(e)).retry().atMost(3));
    }

    @WithTransaction
    @DatabaseGuard
    Uni<Settled> settle(Prepared prepared, ChargeOutcome outcome, WhenNotSent whenNotSent) {
        Instant now = clock.instant();
        return Payment.<Payment>findById(prepared.paymentId(), LockModeType.PESSIMISTIC_WRITE)
                .chain(payment -> apply(payment, prepared.storedBefore(), outcome, whenNotSent, now)
                        .chain(status -> StoredSubscription.<StoredSubscription>findById(prepared.subscriptionId())
                                .map(row -> new Settled(outcome, status, row.toDomain()))))
                // a charge answered pending, or not at all, may still be carried out: it stays on its way until its time is up
                .call(settled -> settled.outcome() instanceof ChargeOutcome.Accepted accepted && "IN_PROGRESS".equals(accepted.status())
                        || settled.outcome() instanceof ChargeOutcome.Uncertain
                        || settled.paymentStatus() == null
                        ? Uni.createFrom().voidItem() : BillingKeyCharge.answered(prepared.paymentId()));
    }

    private Uni<PaymentStatus> apply(Payment payment, boolean storedBefore, ChargeOutcome outcome, WhenNotSent whenNotSent, Instant now) {
        if (!(outcome instanceof ChargeOutcome.SurelyNotArrived) && !payment.settled()) {
            // an answer that may mean a charge: from now on the callback and reconciliation settle it, never a rollback
            payment.keptForResend = false;
        }
        if (outcome instanceof ChargeOutcome.Accepted accepted) {
            if ("DONE".equals(accepted.status()) && accepted.totalAmount() != null) {
                return settlement.applyChargeAnswer(payment, new GatewayReport(accepted.paymentKey(), payment.orderId, "DONE", accepted.totalAmount()))
                        .map(result -> payment.status);
            }
            if ("ABORTED".equals(accepted.status()) || "CANCELED".equals(accepted.status())) {
                return fail(payment, accepted.paymentKey(), "declined by the card issuer", now);
            }
            if (!payment.settled() && payment.externalPaymentKey == null) {
                payment.externalPaymentKey = accepted.paymentKey();
            }
            return Uni.createFrom().item(payment.status);
        }
        if (outcome instanceof ChargeOutcome.Rejected rejected) {
            String reason = "refused by the gateway: " + rejected.code();
            if (rejected.keyUsedBefore()) {
                // the gateway holds an earlier request under the attempt's key for another order or amount: one it carried out
                // is a charge under that key, and order id, that nothing here pays for
                return fail(payment, null, reason, now).call(() -> strays.watch(payment, null, reason, now));
            }
            return fail(payment, null, reason, now);
        }
        if (outcome instanceof ChargeOutcome.SurelyNotArrived notArrived) {
            if (whenNotSent == WhenNotSent.SEND_AGAIN && !payment.settled()) {
                if (notArrived.answeredUnprocessed() || storedBefore) {
                    // only the gateway's contract says a 500 or 429 did nothing, and an earlier try may have sent the attempt
                    // before this one's connection failed: it stays, to be sent again as it is (its key, order id and amount),
                    // and while it is in flight nothing changes what it was priced for; a gateway that did charge answers the
                    // same charge, and one whose subscription ended meanwhile is settled by reconciliation (a charge the
                    // subscription cannot use is given back)
                    return Uni.createFrom().item(payment.status);
                }
                return RowDeletes.delete(payment, "payment", payment.id).replaceWith((PaymentStatus) null);
            }
            String reason = "never reached the gateway: " + notArrived.reason();
            if (notArrived.answeredUnprocessed()) {
                // only the gateway's contract says a 500 or 429 did nothing: a gateway that broke it holds money for a payment
                // failed here, and the charge's order id finds it
                return fail(payment, null, reason, now).call(() -> strays.watch(payment, null, reason, now));
            }
            return fail(payment, null, reason, now);
        }
        return Uni.createFrom().item(payment.status);
    }

    private Uni<PaymentStatus> fail(Payment payment, String paymentKey, String reason, Instant now) {
        return payment.fail(paymentKey, reason, now) ? outcomes.failed(payment, now).replaceWith(payment.status)
                : Uni.createFrom().item(payment.status);
    }
}
