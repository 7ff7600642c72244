package dev.umbra.billing.ledger;

import dev.umbra.events.billing.LedgerEntryCorrected;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.storage.NativeSelects;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.hibernate.reactive.panache.common.WithSession;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.util.UUID;

/**
 * Writes and reads the ledger. Entries are only ever inserted, in the transaction of what caused them
 * (a charge's settlement, a refund's success, a correction), with the event that announces it as
 * their source; a correction is its own event, LedgerEntryCorrected.
 */
@ApplicationScoped
public class LedgerService {

    private final OutboxWriter outbox;
    private final Clock clock;

    public LedgerService(OutboxWriter outbox, Clock clock) {
        this.outbox = outbox;
        this.clock = clock;
    }

    /** Appends a CHARGE or a REFUND in the caller's transaction; booked now. */
    public Uni<Void> book(UUID subscriptionId, EntryKind kind, long amount, String currency, UUID sourceEventId, UUID invoiceId,
            String description, Instant occurredAt, Instant recordedAt) {
        LedgerEntry entry = new LedgerEntry(UUID.randomUUID(), subscriptionId, kind, amount, currency, sourceEventId, invoiceId, null,
                description, occurredAt, recordedAt, clock.instant());
        return StoredLedgerEntry.of(entry).persist().replaceWithVoid();
    }

    @WithSession
    @DatabaseGuard
    public Uni<Ledger> ledger(UUID subscriptionId) {
        return load(subscriptionId);
    }

    /**
     * Corrects an entry: a REVERSAL and an ADJUSTMENT, both with the LedgerEntryCorrected event as their
     * source. Corrections of one subscription are serialised (a transaction-level advisory lock), so two
     * at once cannot both reverse the same entry; the unique index on the reversed entry is the backstop.
     */
    @WithTransaction
    @DatabaseGuard
    public Uni<Ledger.Correction> correct(UUID subscriptionId, UUID entryId, long rightAmount, String reason) {
        return lockLedger(subscriptionId).chain(() -> load(subscriptionId)).chain(ledger -> {
            Instant now = clock.instant();
            // The entries are made first so that the event can name them; their source, the event's id, is
            // known once the outbox wrote it, and replaces this provisional one before they are stored.
            Ledger.Correction correction = ledger.correct(entryId, rightAmount, reason, UUID.randomUUID(), now);
            LedgerEntry reversal = correction.reversal();
            LedgerEntryCorrected event = new LedgerEntryCorrected(subscriptionId, entryId, reversal.id(), correction.adjustment().id(),
                    BigDecimal.valueOf(-reversal.amount()), BigDecimal.valueOf(rightAmount), reversal.currency(), reversal.occurredAt(), reason);
            return outbox.publish(event, now).chain(envelope -> {
                Ledger.Correction sourced = withSource(correction, envelope.eventId());
                return StoredLedgerEntry.of(sourced.reversal()).persist()
                        .chain(() -> StoredLedgerEntry.of(sourced.adjustment()).persistAndFlush())
                        .replaceWith(sourced);
            });
        });
    }

    private static Ledger.Correction withSource(Ledger.Correction correction, UUID eventId) {
        return new Ledger.Correction(sourced(correction.reversal(), eventId), sourced(correction.adjustment(), eventId));
    }

    private static LedgerEntry sourced(LedgerEntry entry, UUID eventId) {
        return new LedgerEntry(entry.id(), entry.subscriptionId(), entry.kind(), entry.amount(), entry.currency(), eventId, entry.invoiceId(),
                entry.reverses(), entry.description(), entry.occurredAt(), entry.recordedAt(), entry.bookedAt());
    }

    private static Uni<Ledger> load(UUID subscriptionId) {
        return StoredLedgerEntry.<StoredLedgerEntry>list("subscriptionId", subscriptionId)
                .map(rows -> new Ledger(subscriptionId, rows.stream().map(StoredLedgerEntry::toDomain).toList()));
    }

    private static Uni<Void> lockLedger(UUID subscriptionId) {
        return Panache.getSession().chain(session -> NativeSelects.select(session,
                "select count(*) from (select pg_advisory_xact_lock(hashtext($1))) locked", "ledger-of-subscription:" + subscriptionId)).replaceWithVoid();
    }
}
