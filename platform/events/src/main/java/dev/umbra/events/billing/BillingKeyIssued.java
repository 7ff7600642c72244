package dev.umbra.events.billing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.BILLING_KEY)
public record BillingKeyIssued(
        UUID userId,
        UUID billingKeyId) implements DomainEvent {

    public BillingKeyIssued {
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(billingKeyId, "billingKeyId");
    }

    @Override
    public String aggregateId() {
        return billingKeyId.toString();
    }
}
