package dev.umbra.billing.invoice;

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
import java.time.Instant;
import java.util.UUID;

/** One refund of an invoice, an operator's or the service's own, sent to the gateway as a cancel of the invoice's payment. */
@Entity
@Table(name = "refund")
public class Refund extends PanacheEntityBase {

    /** The idempotency key of the refund the service schedules itself: one per invoice. */
    static final String AUTOMATIC = "automatic";

    /** The gateway's limit on a cancel's reason. */
    private static final int REASON_LENGTH = 200;

    @Id
    public UUID id;

    @Column(name = "invoice_id", nullable = false)
    public UUID invoiceId;

    @Column(nullable = false)
    public long amount;

    @Column(nullable = false)
    public String currency;

    @Column(nullable = false)
    public String reason;

    /** The Idempotency-Key of the request that asked for it; {@value #AUTOMATIC} for the service's own. */
    @Column(name = "idempotency_key", nullable = false)
    public String idempotencyKey;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public RefundStatus status;

    @Column(name = "gateway_transaction_key")
    public String gatewayTransactionKey;

    @Column(name = "failure_message")
    public String failureMessage;

    @Column(name = "attempted_at", nullable = false)
    public Instant attemptedAt;

    @Column(name = "resolved_at")
    public Instant resolvedAt;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Version
    public long version;

    static Refund request(Invoice invoice, long amount, String reason, String idempotencyKey, Instant at) {
        Refund refund = new Refund();
        refund.id = UUID.randomUUID();
        refund.invoiceId = invoice.id;
        refund.amount = amount;
        refund.currency = invoice.currency;
        refund.reason = reason;
        refund.idempotencyKey = idempotencyKey;
        refund.status = RefundStatus.IN_PROGRESS;
        refund.attemptedAt = at;
        refund.createdAt = at;
        return refund;
    }

    static Refund schedule(Invoice invoice, long amount, String reason, Instant at) {
        Refund refund = request(invoice, amount, reason.length() <= REASON_LENGTH ? reason : reason.substring(0, REASON_LENGTH), AUTOMATIC, at);
        refund.status = RefundStatus.SCHEDULED;
        return refund;
    }

    /** The idempotency key of its cancel at the gateway; a cancel's record there carries it, which is how a look-up finds it. */
    public String gatewayKey() {
        return gatewayKey(id);
    }

    static String gatewayKey(UUID refundId) {
        return "refund-" + refundId;
    }

    boolean settled() {
        return status == RefundStatus.SUCCEEDED || status == RefundStatus.FAILED;
    }

    void succeed(String transactionKey, Instant at) {
        status = RefundStatus.SUCCEEDED;
        gatewayTransactionKey = transactionKey;
        resolvedAt = at;
    }

    void fail(String reason, Instant at) {
        status = RefundStatus.FAILED;
        failureMessage = reason == null || reason.length() <= 500 ? reason : reason.substring(0, 500);
        resolvedAt = at;
    }

    static Uni<Refund> lockById(UUID id) {
        return findById(id, LockModeType.PESSIMISTIC_WRITE);
    }
}
