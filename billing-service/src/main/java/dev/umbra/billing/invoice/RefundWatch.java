package dev.umbra.billing.invoice;

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
import dev.umbra.billing.payment.GatewayWatch;
import java.util.UUID;

/**
 * A refund FAILED without the gateway's word (its cancel got no usable answer, and settle-after later the
 * gateway listed no cancel with its key; or the gateway answered it with a 500 or 429), watched in case the
 * gateway executes that cancel after all ({@link LateRefunds}). One per refund: its id is the refund's.
 */
@Entity
@Table(name = "refund_watch")
public class RefundWatch extends GatewayWatch {

    @Id
    @Column(name = "refund_id")
    public UUID refundId;

    /** The gateway's key of the refunded payment, whose cancels are searched for the refund's key. */
    @Column(name = "payment_key", nullable = false)
    public String paymentKey;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public RefundWatchStatus status;

    /** Why the refund was failed. */
    @Column(nullable = false)
    public String reason;

    @Column(name = "cancel_transaction_key")
    public String cancelTransactionKey;

    /** Watches {@code refund}, just FAILED at {@code at}: the first look one {@code interval} on, the last {@code watch} on. */
    static RefundWatch of(Refund refund, String paymentKey, Instant at, Duration interval, Duration watch) {
        RefundWatch watched = new RefundWatch();
        watched.refundId = refund.id;
        watched.paymentKey = paymentKey;
        watched.status = RefundWatchStatus.WATCHING;
        watched.reason = truncated(refund.failureMessage == null ? "failed" : refund.failureMessage);
        watched.nextLookAt = at.plus(interval);
        watched.createdAt = at;
        watched.watchUntil = at.plus(watch);
        return watched;
    }

    boolean watching() {
        return status == RefundWatchStatus.WATCHING;
    }

    /** The cancel is there but cannot be recorded yet: looked at again after {@code wait}, whatever the horizon. */
    void waitFor(String found, Instant at, Duration wait) {
        lookAt(found, at.plus(wait));
    }

    void recorded(String transactionKey, Instant at) {
        cancelTransactionKey = transactionKey;
        resolve(RefundWatchStatus.RECORDED, "the gateway executed the cancel after all: recorded", at);
    }

    void resolve(RefundWatchStatus outcome, String found, Instant at) {
        status = outcome;
        ended(found, at);
    }

    static Uni<RefundWatch> lockById(UUID refundId) {
        return findById(refundId, LockModeType.PESSIMISTIC_WRITE);
    }
}
