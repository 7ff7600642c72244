package dev.umbra.events.billing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.math.BigDecimal;
import java.util.Objects;
import java.util.UUID;

/**
 * The gateway gave back money it had taken for a payment that FAILED here. That money was never booked
 * (no invoice, no ledger entry), so this event is the only trace of it having come and gone.
 */
@EventContract(aggregate = Aggregates.SUBSCRIPTION)
public record StrayChargeReturned(
        UUID subscriptionId,
        UUID paymentId,
        UUID strayChargeId,
        BigDecimal amount,
        String currency) implements DomainEvent {

    public StrayChargeReturned {
        Objects.requireNonNull(subscriptionId, "subscriptionId");
        Objects.requireNonNull(paymentId, "paymentId");
        Objects.requireNonNull(strayChargeId, "strayChargeId");
        Objects.requireNonNull(amount, "amount");
        Objects.requireNonNull(currency, "currency");
    }

    @Override
    public String aggregateId() {
        return subscriptionId.toString();
    }
}
