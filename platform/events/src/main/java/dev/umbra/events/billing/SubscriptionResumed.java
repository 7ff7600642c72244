package dev.umbra.events.billing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;
import java.util.UUID;

/** A suspended subscription runs again: {@code reason}, the last reason it was suspended for, is lifted. */
@EventContract(aggregate = Aggregates.SUBSCRIPTION)
public record SubscriptionResumed(
        UUID subscriptionId,
        String reason) implements DomainEvent {

    public SubscriptionResumed {
        Objects.requireNonNull(subscriptionId, "subscriptionId");
    }

    @Override
    public String aggregateId() {
        return subscriptionId.toString();
    }
}
