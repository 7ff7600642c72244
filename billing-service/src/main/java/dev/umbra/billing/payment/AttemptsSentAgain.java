package dev.umbra.billing.payment;

import io.smallrye.mutiny.Uni;
import java.util.UUID;

/**
 * What becomes of an attempt IN_PROGRESS that the gateway has no trace of, where the work that stored it sends attempts
 * again: a renewal kept after a 500, a 429 or a connection that never opened is sent again as it is by its renewal's next
 * try, so "the charge never arrived" is no failure of it (no dunning over our gateway's trouble). Implemented by the renewals.
 */
public interface AttemptsSentAgain {

    /**
     * True when the attempt is not reconciliation's to fail: a try is still to send it, or, none being to come (the
     * subscription changed since), it was rolled back here, to be charged again if still due. False: fail it.
     */
    Uni<Boolean> sentAgainOrRolledBack(UUID paymentId, UUID subscriptionId, int period, String purpose);
}
