package dev.umbra.billing.invoice;

/** IN_PROGRESS from the request until the gateway's answer or the reconciliation job settles it; then final. */
public enum RefundStatus {
    IN_PROGRESS, SUCCEEDED, FAILED
}
