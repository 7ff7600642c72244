package dev.umbra.billing.invoice;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** An invoice as the API shows it. */
public record InvoiceView(UUID id, UUID subscriptionId, UUID userId, UUID paymentId, Instant periodStart, Instant periodEnd,
        List<InvoiceLine> lines, long total, long refunded, String currency, InvoiceStatus status, Instant issuedAt) {

    static InvoiceView of(Invoices.IssuedInvoice issued) {
        Invoice invoice = issued.invoice();
        return new InvoiceView(invoice.id, invoice.subscriptionId, invoice.userId, invoice.paymentId, invoice.periodStart, invoice.periodEnd,
                issued.lines(), invoice.total, invoice.refunded, invoice.currency, invoice.status, invoice.issuedAt);
    }
}
