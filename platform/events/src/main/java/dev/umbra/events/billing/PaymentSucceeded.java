package dev.umbra.events.billing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.SUBSCRIPTION)
public record PaymentSucceeded(
        UUID subscriptionId,
        UUID attemptId,
        Instant newPeriodEnd) implements DomainEvent {

    public PaymentSucceeded {
        Objects.requireNonNull(subscriptionId, "subscriptionId");
        Objects.requireNonNull(attemptId, "attemptId");
        Objects.requireNonNull(newPeriodEnd, "newPeriodEnd");
    }

    @Override
    public String aggregateId() {
        return subscriptionId.toString();
    }
}
