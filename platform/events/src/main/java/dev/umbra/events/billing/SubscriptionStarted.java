package dev.umbra.events.billing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.SUBSCRIPTION)
public record SubscriptionStarted(
        UUID subscriptionId,
        String guildId,
        String planCode) implements DomainEvent {

    public SubscriptionStarted {
        Objects.requireNonNull(subscriptionId, "subscriptionId");
        Objects.requireNonNull(guildId, "guildId");
    }

    @Override
    public String aggregateId() {
        return subscriptionId.toString();
    }
}
