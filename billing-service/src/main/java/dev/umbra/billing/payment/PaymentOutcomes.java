package dev.umbra.billing.payment;

import io.smallrye.mutiny.Uni;
import java.time.Instant;

/**
 * What a settled payment means for the thing it paid for. Called once per payment, in the transaction
 * that settles it, whoever settles it: the charge's own answer, the gateway's callback or the
 * reconciliation job. Implemented by the subscriptions (first charge, renewal, upgrade).
 */
public interface PaymentOutcomes {

    Uni<Void> succeeded(Payment payment, Instant at);

    Uni<Void> failed(Payment payment, Instant at);
}
