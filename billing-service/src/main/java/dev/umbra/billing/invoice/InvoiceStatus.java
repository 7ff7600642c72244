package dev.umbra.billing.invoice;

/**
 * ISSUED: asked for, not paid yet. Every invoice here is issued for money the gateway has already
 * taken, in the transaction that settles the charge, so it starts PAID; refunds move it on.
 */
public enum InvoiceStatus {
    ISSUED, PAID, PARTIALLY_REFUNDED, REFUNDED
}
