package dev.umbra.billing.payment;

import io.smallrye.mutiny.Uni;
import java.util.UUID;

/**
 * Whether an attempt IN_PROGRESS that the gateway has no trace of is still to be sent again by the work that stored it: a
 * renewal answered 500 or 429 is kept and sent again as it is by its renewal's next try, so "the charge never arrived" is no
 * failure of it while that try is to come. Implemented by the renewals.
 */
public interface AttemptsSentAgain {

    /** Whether the attempt at {@code purpose} for {@code period} of the subscription is still to be sent again. */
    Uni<Boolean> willSendAgain(UUID subscriptionId, int period, String purpose);
}
