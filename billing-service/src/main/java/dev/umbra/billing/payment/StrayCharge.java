package dev.umbra.billing.payment;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import io.smallrye.mutiny.Uni;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.LockModeType;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * Money the gateway holds, or may come to hold, for a payment that FAILED here ({@link StrayCharges}):
 * watched until it is known, and given back in full.
 */
@Entity
@Table(name = "stray_charge")
public class StrayCharge extends PanacheEntityBase {

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

    /** What the last look found. */
    public String detail;

    public int looks;

    @Column(name = "next_look_at", nullable = false)
    public Instant nextLookAt;

    @Column(name = "watch_until", nullable = false)
    public Instant watchUntil;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(name = "resolved_at")
    public Instant resolvedAt;

    @Version
    public long version;

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

    /** Looked at once more without a conclusion: the next look waits twice as long as the last, up to {@code longest}. */
    void lookAgain(String found, Instant at, Duration first, Duration longest) {
        detail = truncated(found);
        Duration wait = first.multipliedBy(1L << Math.min(looks, 20));
        nextLookAt = at.plus(wait.compareTo(longest) > 0 ? longest : wait);
        looks++;
    }

    void resolve(StrayChargeStatus outcome, String found, Instant at) {
        status = outcome;
        detail = truncated(found);
        resolvedAt = at;
        looks++;
    }

    void returned(long amount, String transactionKey, Instant at) {
        returnedAmount = amount;
        cancelTransactionKey = transactionKey;
        resolve(StrayChargeStatus.RETURNED, "given back: " + amount, at);
    }

    static Uni<StrayCharge> lockById(UUID id) {
        return findById(id, LockModeType.PESSIMISTIC_WRITE);
    }

    private static String truncated(String text) {
        return text == null || text.length() <= 500 ? text : text.substring(0, 500);
    }
}
