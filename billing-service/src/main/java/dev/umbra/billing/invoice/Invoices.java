package dev.umbra.billing.invoice;

import dev.umbra.billing.access.Caller;
import dev.umbra.billing.ledger.EntryKind;
import dev.umbra.billing.ledger.LedgerService;
import dev.umbra.events.billing.InvoiceGenerated;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.web.ProblemException;
import io.quarkus.hibernate.reactive.panache.common.WithSession;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * Issues the invoice of a successful charge — in the transaction that settles the charge, whoever
 * settles it — with its InvoiceGenerated and the ledger's CHARGE entry; and reads invoices.
 */
@ApplicationScoped
public class Invoices {

    /** An invoice with its lines. */
    public record IssuedInvoice(Invoice invoice, List<InvoiceLine> lines) {
    }

    private final OutboxWriter outbox;
    private final LedgerService ledger;

    public Invoices(OutboxWriter outbox, LedgerService ledger) {
        this.outbox = outbox;
        this.ledger = ledger;
    }

    /**
     * In the settling transaction: the invoice of a charge of {@code paid} that happened at
     * {@code chargedAt} and was learned of at {@code settledAt}. Its payment can have only one (a
     * unique index), so a settlement that lost a race rolls back with its invoice.
     */
    public Uni<Invoice> issue(InvoiceContent content, long paid, Instant chargedAt, Instant settledAt) {
        InvoiceContent checked = content.requirePaid(paid);
        Invoice invoice = Invoice.issue(checked, settledAt);
        List<InvoiceLine> lines = checked.lines();
        Uni<Void> stored = invoice.persist().replaceWithVoid();
        for (int i = 0; i < lines.size(); i++) {
            StoredInvoiceLine line = StoredInvoiceLine.of(invoice.id, i + 1, lines.get(i));
            stored = stored.chain(() -> line.persist()).replaceWithVoid();
        }
        InvoiceGenerated generated = new InvoiceGenerated(invoice.id, invoice.subscriptionId, invoice.periodStart, invoice.periodEnd,
                BigDecimal.valueOf(invoice.total), invoice.currency);
        return stored.chain(() -> outbox.publish(generated, settledAt))
                .chain(envelope -> ledger.book(invoice.subscriptionId, EntryKind.CHARGE, invoice.total, invoice.currency, envelope.eventId(),
                        invoice.id, "charge " + content.paymentId() + ": " + lines.get(0).description(), chargedAt, settledAt))
                .replaceWith(invoice);
    }

    @WithSession
    @DatabaseGuard
    public Uni<IssuedInvoice> get(UUID id, JsonWebToken caller) {
        return Invoice.<Invoice>findById(id).chain(invoice -> {
            if (invoice == null) {
                throw ProblemException.notFound("no invoice " + id);
            }
            if (!Caller.mayActFor(caller, invoice.userId)) {
                throw Caller.forbidden();
            }
            return withLines(List.of(invoice)).map(all -> all.get(0));
        });
    }

    /** A subscription's invoices, newest first; a user sees only the invoices they paid. */
    @WithSession
    @DatabaseGuard
    public Uni<List<IssuedInvoice>> ofSubscription(UUID subscriptionId, JsonWebToken caller) {
        return Invoice.<Invoice>list("subscriptionId = ?1 order by issuedAt desc, id", subscriptionId)
                .chain(invoices -> withLines(invoices.stream().filter(invoice -> Caller.mayActFor(caller, invoice.userId)).toList()));
    }

    @WithSession
    @DatabaseGuard
    public Uni<List<IssuedInvoice>> ofUser(UUID userId) {
        return Invoice.<Invoice>list("userId = ?1 order by issuedAt desc, id", userId).chain(Invoices::withLines);
    }

    private static Uni<List<IssuedInvoice>> withLines(List<Invoice> invoices) {
        if (invoices.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        List<UUID> ids = invoices.stream().map(invoice -> invoice.id).toList();
        return StoredInvoiceLine.<StoredInvoiceLine>list("invoiceId in ?1", ids).map(rows -> {
            Map<UUID, List<InvoiceLine>> lines = rows.stream().sorted(Comparator.comparingInt(row -> row.position))
                    .collect(Collectors.groupingBy(row -> row.invoiceId, Collectors.mapping(StoredInvoiceLine::toDomain, Collectors.toList())));
            return invoices.stream().map(invoice -> new IssuedInvoice(invoice, lines.getOrDefault(invoice.id, List.of()))).toList();
        });
    }
}
