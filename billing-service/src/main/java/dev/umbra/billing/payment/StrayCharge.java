package dev.umbra.billing.payment;

import io.smallrye.mutiny.Uni;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.LockModeType;
import jakarta.persistence.Table;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * Money the gateway holds, or may come to hold, for a payment that FAILED here ({@link StrayCharges}):
 * watched until it is known, and given back in full.
 */
@Entity
@Table(name = "stray_charge")
public class StrayCharge extends GatewayWatch {

    @Id
    public UUID id;

    @Column(name = "payment_id", nullable = false)
    public UUID paymentId;

    @Column(name = "order_id", nullable = false)
    public String orderId;

    /** The gateway's payment, when known; else it is looked up by order id. */
    @Column(name = "payment_key")
    public String paymentKey;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public StrayChargeStatus status;

    /** Why it is watched. */
    @Column(nullable = false)
    public String reason;

    @Column(name = "returned_amount")
    public Long returnedAmount;

    @Column(name = "cancel_transaction_key")
    public String cancelTransactionKey;

    static StrayCharge watch(Payment payment, String paymentKey, String reason, Instant at, Duration watch) {
        StrayCharge stray = new StrayCharge();
        stray.id = UUID.randomUUID();
        stray.paymentId = payment.id;
        stray.orderId = payment.orderId;
        stray.paymentKey = paymentKey;
        stray.status = StrayChargeStatus.WATCHING;
        stray.reason = truncated(reason);
        stray.nextLookAt = at;
        stray.createdAt = at;
        stray.watchUntil = at.plus(watch);
        return stray;
    }

    /** The idempotency key of the cancel that gives it back; the gateway lists a cancel with its key, which is how a look-up finds it. */
    public String returnKey() {
        return returnKey(id);
    }

    static String returnKey(UUID id) {
        return "stray-" + id;
    }

    boolean watching() {
        return status == StrayChargeStatus.WATCHING;
    }

    void resolve(StrayChargeStatus outcome, String found, Instant at) {
        status = outcome;
        ended(found, at);
    }

    void returned(long amount, String transactionKey, Instant at) {
        returnedAmount = amount;
        cancelTransactionKey = transactionKey;
        resolve(StrayChargeStatus.RETURNED, "given back: " + amount, at);
    }

    static Uni<StrayCharge> lockById(UUID id) {
        return findById(id, LockModeType.PESSIMISTIC_WRITE);
    }
}
