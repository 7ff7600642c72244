package dev.umbra.billing.invoice;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * What an invoice says about one successful charge: the period it pays, its lines and their total,
 * which must be exactly what the gateway took ({@code paid}); an invoice that disagrees with the
 * money is refused rather than stored.
 */
public record InvoiceContent(UUID paymentId, UUID subscriptionId, UUID userId, Instant periodStart, Instant periodEnd,
        List<InvoiceLine> lines, String currency) {

    public InvoiceContent {
        Objects.requireNonNull(paymentId, "paymentId");
        Objects.requireNonNull(subscriptionId, "subscriptionId");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(currency, "currency");
        if (!periodEnd.isAfter(periodStart)) {
            throw new IllegalArgumentException("not a period: " + periodStart + " .. " + periodEnd);
        }
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("an invoice has at least one line");
        }
        lines = List.copyOf(lines);
    }

    /** An invoice of one line for a charge of {@code paid}. */
    public static InvoiceContent of(UUID paymentId, UUID subscriptionId, UUID userId, Instant periodStart, Instant periodEnd,
            String description, long paid, String currency) {
        return new InvoiceContent(paymentId, subscriptionId, userId, periodStart, periodEnd, List.of(new InvoiceLine(description, paid)),
                currency);
    }

    public long total() {
        return lines.stream().mapToLong(InvoiceLine::amount).reduce(0, Math::addExact);
    }

    /** The content, checked against the money the gateway took. */
    public InvoiceContent requirePaid(long paid) {
        if (total() != paid) {
            throw new IllegalArgumentException("the lines of the invoice of payment " + paymentId + " total " + total() + ", "
                    + paid + " was paid");
        }
        return this;
    }
}
