package dev.umbra.billing.payment;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;

/**
 * One attempt to charge a subscription for a period (or for an upgrade within it). The unique indexes
 * of its table allow one attempt in flight and one success per (subscription, period, purpose); the
 * version makes the gateway's callback and the reconciliation job race safely: one settles it, the
 * other finds it settled.
 */
@Entity
@Table(name = "payment")
public class Payment extends PanacheEntityBase {

    /** The purpose of a first charge or a renewal; an upgrade's is {@code UPGRADE_<plan>}. */
    public static final String PERIOD = "PERIOD";

    @Id
    public UUID id;

    @Column(name = "subscription_id", nullable = false)
    public UUID subscriptionId;

    @Column(nullable = false)
    public int period;

    @Column(nullable = false)
    public String purpose;

    /**
     * An upgrade's: the plan the subscription was on when the upgrade was quoted, which its amount prices the
     * difference from. Null for a first charge or a renewal, and for an upgrade stored by a version of the
     * service that did not record it (its settlement then takes the subscription's plan, as those did).
     */
    @Column(name = "quoted_from_plan")
    public String quotedFromPlan;

    /** What names this attempt at the gateway: the look-up by order id finds it after an uncertain call. */
    @Column(name = "order_id", nullable = false)
    public String orderId;

    @Column(name = "idempotency_key", nullable = false)
    public String idempotencyKey;

    @Column(nullable = false)
    public long amount;

    @Column(name = "paid_amount", nullable = false)
    public long paidAmount;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public PaymentStatus status;

    @Column(name = "external_payment_key")
    public String externalPaymentKey;

    @Column(name = "failure_message")
    public String failureMessage;

    @Column(name = "attempted_at", nullable = false)
    public Instant attemptedAt;

    @Column(name = "resolved_at")
    public Instant resolvedAt;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    /**
     * A renewal's attempt that its renewal's tries send (again) as stored: set when a renewal stores it, cleared once the
     * gateway answers it with anything but "nothing was done" (a 500, a 429) or no connection. Reconciliation rolls back
     * such an attempt the gateway has no trace of once no try of its renewal is to come.
     */
    @Column(name = "kept_for_resend", nullable = false)
    public boolean keptForResend;

    @Version
    public long version;

    public static Payment attempt(UUID subscriptionId, int period, String purpose, String idempotencyKey, long amount,
            Instant at) {
        Payment payment = new Payment();
        payment.id = UUID.randomUUID();
        payment.subscriptionId = subscriptionId;
        payment.period = period;
        payment.purpose = purpose;
        payment.orderId = orderIdOf(idempotencyKey);
        payment.idempotencyKey = idempotencyKey;
        payment.amount = amount;
        payment.status = PaymentStatus.IN_PROGRESS;
        payment.attemptedAt = at;
        payment.createdAt = at;
        return payment;
    }

    /**
     * The order id follows from the idempotency key, as the key follows from the attempt: an attempt rolled back
     * because the gateway answered that it did nothing (a 500) and sent again is the same request, so a gateway that
     * did act after all answers it with that charge, instead of refusing a known key with a new order id.
     */
    static String orderIdOf(String idempotencyKey) {
        return "pay-" + UUID.nameUUIDFromBytes(idempotencyKey.getBytes(StandardCharsets.UTF_8));
    }

    public boolean settled() {
        return status != PaymentStatus.IN_PROGRESS;
    }

    /** The gateway charged {@code paid}. Returns false when it was settled already (a late or repeated report). */
    public boolean succeed(String paymentKey, long paid, Instant at) {
        if (settled()) {
            return false;
        }
        status = PaymentStatus.SUCCEEDED;
        externalPaymentKey = paymentKey;
        paidAmount = paid;
        resolvedAt = at;
        return true;
    }

    /** The gateway charged nothing. Returns false when it was settled already. */
    public boolean fail(String paymentKey, String reason, Instant at) {
        if (settled()) {
            return false;
        }
        status = PaymentStatus.FAILED;
        if (paymentKey != null) {
            externalPaymentKey = paymentKey;
        }
        failureMessage = reason == null || reason.length() <= 500 ? reason : reason.substring(0, 500);
        resolvedAt = at;
        return true;
    }
}
