package dev.umbra.events.billing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/** The subscription's first charge succeeded; {@code periodEnd} ends the period it paid for. */
@EventContract(aggregate = Aggregates.SUBSCRIPTION)
public record SubscriptionStarted(
        UUID subscriptionId,
        String guildId,
        String planCode,
        Instant periodEnd) implements DomainEvent {

    public SubscriptionStarted {
        Objects.requireNonNull(subscriptionId, "subscriptionId");
        Objects.requireNonNull(guildId, "guildId");
        Objects.requireNonNull(planCode, "planCode");
        Objects.requireNonNull(periodEnd, "periodEnd");
    }

    @Override
    public String aggregateId() {
        return subscriptionId.toString();
    }
}
