package dev.umbra.billing.invoice;

/** A refund the invoice does not allow (more than is left, nothing, an invoice not paid): 422, nothing stored. */
public class RefundRejectedException extends RuntimeException {

    public RefundRejectedException(String message) {
        super(message);
    }
}
