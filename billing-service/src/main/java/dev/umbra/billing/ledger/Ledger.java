package dev.umbra.billing.ledger;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * The entries of one subscription and what they say at any point of both time axes: "the balance on
 * the 26th, as we knew it on the 27th" counts the entries that occurred by the 26th and were recorded
 * by the 27th. A wrong entry is never changed: {@link #correct} answers a REVERSAL that cancels it
 * exactly and an ADJUSTMENT with the right amount, both dated when the wrong entry occurred and
 * recorded when the mistake was found, so what was believed before stays answerable.
 */
public record Ledger(UUID subscriptionId, List<LedgerEntry> entries) {

    /** The entries a correction appends. */
    public record Correction(LedgerEntry reversal, LedgerEntry adjustment) {
    }

    public Ledger {
        Objects.requireNonNull(subscriptionId, "subscriptionId");
        entries = entries.stream().sorted(Comparator.comparing(LedgerEntry::recordedAt).thenComparing(LedgerEntry::bookedAt)).toList();
    }

    public List<LedgerEntry> entries(Instant asOf, Instant knownAt) {
        return entries.stream().filter(entry -> entry.visible(asOf, knownAt)).toList();
    }

    public long balance(Instant asOf, Instant knownAt) {
        return entries(asOf, knownAt).stream().mapToLong(LedgerEntry::amount).reduce(0, Math::addExact);
    }

    /**
     * Corrects entry {@code entryId} to {@code rightAmount} (signed as the ledger shows it), as found at
     * {@code at}; {@code sourceEventId} is the correction's own event. Refused for an unknown entry, a
     * reversal, an entry already reversed, or the amount it already has.
     */
    public Correction correct(UUID entryId, long rightAmount, String reason, UUID sourceEventId, Instant at) {
        LedgerEntry wrong = entries.stream().filter(entry -> entry.id().equals(entryId)).findFirst()
                .orElseThrow(() -> new CorrectionRejectedException("subscription " + subscriptionId + " has no ledger entry " + entryId));
        if (wrong.kind() == EntryKind.REVERSAL) {
            throw new CorrectionRejectedException("a reversal is not corrected; correct the adjustment that followed it");
        }
        if (entries.stream().anyMatch(entry -> entryId.equals(entry.reverses()))) {
            throw new CorrectionRejectedException("entry " + entryId + " was corrected already; correct its adjustment instead");
        }
        if (wrong.amount() == rightAmount) {
            throw new CorrectionRejectedException("entry " + entryId + " already has the amount " + rightAmount);
        }
        LedgerEntry reversal = new LedgerEntry(UUID.randomUUID(), subscriptionId, EntryKind.REVERSAL, -wrong.amount(), wrong.currency(),
                sourceEventId, wrong.invoiceId(), wrong.id(), "reversal of " + wrong.kind() + " " + wrong.id() + ": " + reason,
                wrong.occurredAt(), at, at);
        LedgerEntry adjustment = new LedgerEntry(UUID.randomUUID(), subscriptionId, EntryKind.ADJUSTMENT, rightAmount, wrong.currency(),
                sourceEventId, wrong.invoiceId(), null, "correction of " + wrong.kind() + " " + wrong.id() + ": " + reason,
                wrong.occurredAt(), at, at);
        return new Correction(reversal, adjustment);
    }
}
