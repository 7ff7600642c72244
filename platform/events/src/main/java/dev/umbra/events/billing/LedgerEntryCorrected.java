package dev.umbra.events.billing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * An operator corrected a wrong entry of a subscription's ledger: the entry stays, a reversal cancels
 * it exactly and an adjustment books the right amount, both dated when the wrong entry occurred.
 */
@EventContract(aggregate = Aggregates.SUBSCRIPTION)
public record LedgerEntryCorrected(
        UUID subscriptionId,
        UUID correctedEntryId,
        UUID reversalEntryId,
        UUID adjustmentEntryId,
        BigDecimal wrongAmount,
        BigDecimal rightAmount,
        String currency,
        Instant entryOccurredAt,
        String reason) implements DomainEvent {

    public LedgerEntryCorrected {
        Objects.requireNonNull(subscriptionId, "subscriptionId");
        Objects.requireNonNull(correctedEntryId, "correctedEntryId");
        Objects.requireNonNull(reversalEntryId, "reversalEntryId");
        Objects.requireNonNull(adjustmentEntryId, "adjustmentEntryId");
        Objects.requireNonNull(wrongAmount, "wrongAmount");
        Objects.requireNonNull(rightAmount, "rightAmount");
    }

    @Override
    public String aggregateId() {
        return subscriptionId.toString();
    }
}
