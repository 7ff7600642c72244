package dev.umbra.billing.payment;

/** IN_PROGRESS until the gateway's answer, its callback or a look-up settles it; then final. */
public enum PaymentStatus {
    IN_PROGRESS, SUCCEEDED, FAILED
}
