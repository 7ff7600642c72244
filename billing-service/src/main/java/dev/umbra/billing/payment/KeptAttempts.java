package dev.umbra.billing.payment;

import io.smallrye.mutiny.Uni;
import java.util.UUID;

/**
 * What becomes of a renewal's attempt that the gateway has no trace of. Renewals send an attempt again as stored (its key,
 * order id and amount) while it is kept ({@link Payment#keptForResend}) and an item of its period is to come, so "the charge
 * never arrived" is no failure of it then. Implemented by the renewals.
 */
public interface KeptAttempts {

    enum Fate {
        /** An item of its period is still to send it, or is sending it now: left IN_PROGRESS. */
        TO_BE_SENT_AGAIN,
        /** It charged nothing and no try of its renewal is to come: removed, and its renewal's step put back in line. */
        ROLLED_BACK,
        /** Not the renewals' to decide (never kept, its subscription canceled, settled meanwhile): reconciliation fails it. */
        NOT_KEPT
    }

    Uni<Fate> noTraceAtGateway(UUID paymentId, UUID subscriptionId, int period);
}
