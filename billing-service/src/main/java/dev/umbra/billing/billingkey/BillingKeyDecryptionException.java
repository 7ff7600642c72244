package dev.umbra.billing.billingkey;

/** A stored billing key that cannot be read back: tampered with, moved to another row, or under a key we no longer hold. */
public class BillingKeyDecryptionException extends RuntimeException {

    public BillingKeyDecryptionException(String why, Throwable cause) {
        super(why, cause);
    }
}
