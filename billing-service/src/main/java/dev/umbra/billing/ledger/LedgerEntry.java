package dev.umbra.billing.ledger;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One entry of a subscription's ledger, never changed once written. {@code amount} is signed (what the
 * customer's payments to us changed by). Three times: {@code occurredAt} when it happened in the world
 * (the actual time), {@code recordedAt} when billing learned of it (the record time), {@code bookedAt}
 * when it was written to the ledger (the processing time).
 *
 * @param sourceEventId the event that caused it (InvoiceGenerated, RefundSucceeded, LedgerEntryCorrected)
 * @param reverses      the entry a REVERSAL cancels; null for every other kind
 */
public record LedgerEntry(UUID id, UUID subscriptionId, EntryKind kind, long amount, String currency, UUID sourceEventId,
        UUID invoiceId, UUID reverses, String description, Instant occurredAt, Instant recordedAt, Instant bookedAt) {

    public LedgerEntry {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(subscriptionId, "subscriptionId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(currency, "currency");
        Objects.requireNonNull(sourceEventId, "sourceEventId");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(recordedAt, "recordedAt");
        Objects.requireNonNull(bookedAt, "bookedAt");
        if ((kind == EntryKind.REVERSAL) != (reverses != null)) {
            throw new IllegalArgumentException("a reversal, and only a reversal, names the entry it reverses");
        }
        if (kind == EntryKind.CHARGE && amount <= 0 || kind == EntryKind.REFUND && amount >= 0) {
            throw new IllegalArgumentException("a charge adds and a refund subtracts: " + kind + " " + amount);
        }
    }

    /** Known by {@code knownAt} and happened by {@code asOf}. */
    public boolean visible(Instant asOf, Instant knownAt) {
        return !occurredAt.isAfter(asOf) && !recordedAt.isAfter(knownAt);
    }
}
