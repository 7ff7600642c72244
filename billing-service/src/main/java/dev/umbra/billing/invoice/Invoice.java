package dev.umbra.billing.invoice;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import io.smallrye.mutiny.Uni;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.LockModeType;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

/** The invoice of one successful charge (one per payment, by a unique index). Its amounts change only through {@link InvoiceAmounts}. */
@Entity
@Table(name = "invoice")
public class Invoice extends PanacheEntityBase {

    @Id
    public UUID id;

    @Column(name = "subscription_id", nullable = false)
    public UUID subscriptionId;

    @Column(name = "user_id", nullable = false)
    public UUID userId;

    @Column(name = "payment_id", nullable = false)
    public UUID paymentId;

    @Column(name = "period_start", nullable = false)
    public Instant periodStart;

    @Column(name = "period_end", nullable = false)
    public Instant periodEnd;

    @Column(nullable = false)
    public String currency;

    @Column(nullable = false)
    public long total;

    @Column(name = "refund_reserved", nullable = false)
    public long refundReserved;

    @Column(nullable = false)
    public long refunded;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public InvoiceStatus status;

    @Column(name = "issued_at", nullable = false)
    public Instant issuedAt;

    @Version
    public long version;

    static Invoice issue(InvoiceContent content, Instant at) {
        Invoice invoice = new Invoice();
        invoice.id = UUID.randomUUID();
        invoice.subscriptionId = content.subscriptionId();
        invoice.userId = content.userId();
        invoice.paymentId = content.paymentId();
        // as PostgreSQL keeps them, so that InvoiceGenerated says what the row says
        invoice.periodStart = content.periodStart().truncatedTo(ChronoUnit.MICROS);
        invoice.periodEnd = content.periodEnd().truncatedTo(ChronoUnit.MICROS);
        invoice.currency = content.currency();
        invoice.issuedAt = at.truncatedTo(ChronoUnit.MICROS);
        invoice.take(InvoiceAmounts.paid(content.total()));
        return invoice;
    }

    InvoiceAmounts amounts() {
        return new InvoiceAmounts(total, refundReserved, refunded);
    }

    void take(InvoiceAmounts amounts) {
        total = amounts.total();
        refundReserved = amounts.reserved();
        refunded = amounts.refunded();
        status = amounts.status();
    }

    /** Locked until the transaction ends: refunds of one invoice reserve their amounts one after the other. */
    static Uni<Invoice> lockById(UUID id) {
        return findById(id, LockModeType.PESSIMISTIC_WRITE);
    }
}
