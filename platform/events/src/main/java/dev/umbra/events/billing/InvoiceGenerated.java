package dev.umbra.events.billing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.INVOICE)
public record InvoiceGenerated(
        UUID invoiceId,
        UUID subscriptionId,
        Instant periodStart,
        Instant periodEnd,
        BigDecimal total,
        String currency) implements DomainEvent {

    public InvoiceGenerated {
        Objects.requireNonNull(invoiceId, "invoiceId");
        Objects.requireNonNull(subscriptionId, "subscriptionId");
        Objects.requireNonNull(periodStart, "periodStart");
        Objects.requireNonNull(periodEnd, "periodEnd");
        Objects.requireNonNull(total, "total");
    }

    @Override
    public String aggregateId() {
        return invoiceId.toString();
    }
}
