package dev.umbra.billing.invoice;

import java.time.Instant;
import java.util.UUID;

/** A refund as the API shows it. */
public record RefundView(UUID id, UUID invoiceId, long amount, String currency, String reason, RefundStatus status, String failure,
        Instant requestedAt, Instant resolvedAt) {

    static RefundView of(Refund refund) {
        return new RefundView(refund.id, refund.invoiceId, refund.amount, refund.currency, refund.reason, refund.status, refund.failureMessage,
                refund.createdAt, refund.resolvedAt);
    }
}
