package dev.umbra.billing.payment;

import dev.umbra.billing.gateway.PaymentGatewayClient.GatewayPayment;

/**
 * What the gateway says of one of its payments, from a callback or a look-up: its key, the order id
 * that names our attempt, its status and the amount it charged.
 */
public record GatewayReport(String paymentKey, String orderId, String status, long amount) {

    /** What a report means for the payment it is about. */
    public enum Verdict {
        /** DONE: the money was taken. */
        PAID,
        /** ABORTED, CANCELED, EXPIRED: nothing was taken (a refund of a paid payment is another matter, for its settled payment). */
        NOT_PAID,
        /** The gateway has no result yet. */
        PENDING,
        /** A status this service does not know: nothing is concluded from it. */
        UNKNOWN
    }

    public static GatewayReport of(GatewayPayment payment) {
        return new GatewayReport(payment.paymentKey(), payment.orderId(), payment.status(), payment.amount());
    }

    public Verdict verdict() {
        return switch (status == null ? "" : status) {
            case "DONE" -> Verdict.PAID;
            case "ABORTED", "CANCELED", "EXPIRED" -> Verdict.NOT_PAID;
            case "IN_PROGRESS", "READY", "WAITING_FOR_DEPOSIT" -> Verdict.PENDING;
            default -> Verdict.UNKNOWN;
        };
    }
}
