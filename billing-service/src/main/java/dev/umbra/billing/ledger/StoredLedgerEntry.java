package dev.umbra.billing.ledger;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;
import org.hibernate.annotations.Immutable;

/** The row of a {@link LedgerEntry}. Immutable: Hibernate never writes it twice, and the table's trigger refuses UPDATE and DELETE. */
@Entity(name = "StoredLedgerEntry")
@Table(name = "ledger_entry")
@Immutable
public class StoredLedgerEntry extends PanacheEntityBase {

    @Id
    public UUID id;

    @Column(name = "subscription_id", nullable = false)
    public UUID subscriptionId;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public EntryKind kind;

    @Column(nullable = false)
    public long amount;

    @Column(nullable = false)
    public String currency;

    @Column(name = "source_event_id", nullable = false)
    public UUID sourceEventId;

    @Column(name = "invoice_id")
    public UUID invoiceId;

    @Column(name = "reverses_entry_id")
    public UUID reverses;

    @Column(nullable = false)
    public String description;

    @Column(name = "occurred_at", nullable = false)
    public Instant occurredAt;

    @Column(name = "recorded_at", nullable = false)
    public Instant recordedAt;

    @Column(name = "booked_at", nullable = false)
    public Instant bookedAt;

    static StoredLedgerEntry of(LedgerEntry entry) {
        StoredLedgerEntry row = new StoredLedgerEntry();
        row.id = entry.id();
        row.subscriptionId = entry.subscriptionId();
        row.kind = entry.kind();
        row.amount = entry.amount();
        row.currency = entry.currency();
        row.sourceEventId = entry.sourceEventId();
        row.invoiceId = entry.invoiceId();
        row.reverses = entry.reverses();
        row.description = entry.description().length() <= 200 ? entry.description() : entry.description().substring(0, 200);
        row.occurredAt = entry.occurredAt();
        row.recordedAt = entry.recordedAt();
        row.bookedAt = entry.bookedAt();
        return row;
    }

    LedgerEntry toDomain() {
        return new LedgerEntry(id, subscriptionId, kind, amount, currency, sourceEventId, invoiceId, reverses, description, occurredAt,
                recordedAt, bookedAt);
    }
}
