package dev.umbra.events.billing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.SUBSCRIPTION)
public record PlanUpgraded(
        UUID subscriptionId,
        String oldPlan,
        String newPlan) implements DomainEvent {

    public PlanUpgraded {
        Objects.requireNonNull(subscriptionId, "subscriptionId");
    }

    @Override
    public String aggregateId() {
        return subscriptionId.toString();
    }
}
