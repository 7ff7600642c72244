package dev.umbra.billing.invoice;

/**
 * SCHEDULED: asked for by the service itself and not yet given back ({@link AutomaticRefunds} sends it
 * until the gateway answers); IN_PROGRESS: an operator's refund from the request until the gateway's
 * answer or the reconciliation job settles it. SUCCEEDED and FAILED are final.
 */
public enum RefundStatus {
    SCHEDULED, IN_PROGRESS, SUCCEEDED, FAILED
}
