package dev.umbra.events.billing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.SUBSCRIPTION)
public record PaymentFailedFinal(
        UUID subscriptionId) implements DomainEvent {

    public PaymentFailedFinal {
        Objects.requireNonNull(subscriptionId, "subscriptionId");
    }

    @Override
    public String aggregateId() {
        return subscriptionId.toString();
    }
}
