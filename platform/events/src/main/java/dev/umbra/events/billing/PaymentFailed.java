package dev.umbra.events.billing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.SUBSCRIPTION)
public record PaymentFailed(
        UUID subscriptionId,
        UUID attemptId,
        int retryCount) implements DomainEvent {

    public PaymentFailed {
        Objects.requireNonNull(subscriptionId, "subscriptionId");
        Objects.requireNonNull(attemptId, "attemptId");
    }

    @Override
    public String aggregateId() {
        return subscriptionId.toString();
    }
}
