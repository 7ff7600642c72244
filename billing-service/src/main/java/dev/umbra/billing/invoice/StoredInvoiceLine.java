package dev.umbra.billing.invoice;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.util.UUID;

/** The row of an {@link InvoiceLine}. */
@Entity
@Table(name = "invoice_line")
public class StoredInvoiceLine extends PanacheEntityBase {

    @Id
    public UUID id;

    @Column(name = "invoice_id", nullable = false)
    public UUID invoiceId;

    @Column(nullable = false)
    public int position;

    @Column(nullable = false)
    public String description;

    @Column(nullable = false)
    public long amount;

    static StoredInvoiceLine of(UUID invoiceId, int position, InvoiceLine line) {
        StoredInvoiceLine row = new StoredInvoiceLine();
        row.id = UUID.randomUUID();
        row.invoiceId = invoiceId;
        row.position = position;
        row.description = line.description();
        row.amount = line.amount();
        return row;
    }

    InvoiceLine toDomain() {
        return new InvoiceLine(description, amount);
    }
}
