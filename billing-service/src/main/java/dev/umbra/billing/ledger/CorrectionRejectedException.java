package dev.umbra.billing.ledger;

/** A correction the ledger does not allow (a reversal, an entry already corrected, the same amount): 422, nothing stored. */
public class CorrectionRejectedException extends RuntimeException {

    public CorrectionRejectedException(String message) {
        super(message);
    }
}
