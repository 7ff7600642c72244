package dev.umbra.events.billing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.SUBSCRIPTION)
public record PlanDowngraded(
        UUID subscriptionId,
        String oldPlan,
        String newPlan,
        Instant effectiveAt) implements DomainEvent {

    public PlanDowngraded {
        Objects.requireNonNull(subscriptionId, "subscriptionId");
        Objects.requireNonNull(effectiveAt, "effectiveAt");
    }

    @Override
    public String aggregateId() {
        return subscriptionId.toString();
    }
}
