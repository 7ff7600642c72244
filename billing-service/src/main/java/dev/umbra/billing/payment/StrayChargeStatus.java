package dev.umbra.billing.payment;

/** Where a stray charge stands; only WATCHING is still looked at. */
public enum StrayChargeStatus {
    /** Looked up at the gateway again and again until what it holds is known (and given back). */
    WATCHING,
    /** Given back in full by our cancel. */
    RETURNED,
    /** The gateway took nothing, or what it took was given back by other cancels. */
    NOTHING_TAKEN,
    /** The gateway refused our cancel: an operator must give the money back. */
    REFUSED,
    /** Still pending at the gateway when the watch ended: an operator must look. */
    UNRESOLVED
}
