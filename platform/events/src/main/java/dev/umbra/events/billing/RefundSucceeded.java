package dev.umbra.events.billing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.math.BigDecimal;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.INVOICE)
public record RefundSucceeded(
        UUID refundId,
        UUID invoiceId,
        BigDecimal amount,
        String currency) implements DomainEvent {

    public RefundSucceeded {
        Objects.requireNonNull(refundId, "refundId");
        Objects.requireNonNull(invoiceId, "invoiceId");
        Objects.requireNonNull(amount, "amount");
    }

    @Override
    public String aggregateId() {
        return invoiceId.toString();
    }
}
