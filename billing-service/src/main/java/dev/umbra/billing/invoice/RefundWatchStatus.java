package dev.umbra.billing.invoice;

/** Where the watch of a refund FAILED without the gateway's word stands; only WATCHING is still looked at. */
public enum RefundWatchStatus {
    /** Looked up at the gateway again and again, in case the cancel it never listed is executed after all. */
    WATCHING,
    /** The gateway listed the refund's cancel after all: the refund was recorded SUCCEEDED. */
    RECORDED,
    /** No cancel of the refund's key showed up before the watch ended: the refund stays FAILED. */
    NOTHING_ARRIVED
}
