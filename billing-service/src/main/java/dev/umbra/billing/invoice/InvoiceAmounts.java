package dev.umbra.billing.invoice;

/**
 * The money of an invoice and its refunds: {@code reserved} counts the refunds in flight and the
 * succeeded ones, {@code refunded} only the succeeded. A refund reserves its amount before the gateway
 * is asked, so refunds in flight at once can never add up to more than was paid; a failed or
 * rolled-back one gives its reservation back. Immutable; the database's checks say the same.
 */
public record InvoiceAmounts(long total, long reserved, long refunded) {

    public InvoiceAmounts {
        if (total <= 0 || reserved < 0 || reserved > total || refunded < 0 || refunded > reserved) {
            throw new IllegalArgumentException("inconsistent invoice amounts: total " + total + ", reserved " + reserved
                    + ", refunded " + refunded);
        }
    }

    public static InvoiceAmounts paid(long total) {
        return new InvoiceAmounts(total, 0, 0);
    }

    /** What a new refund may still take. */
    public long refundable() {
        return total - reserved;
    }

    /** Reserves {@code amount} for a refund; refused when it is not positive or more than is left. */
    public InvoiceAmounts reserve(long amount) {
        if (amount <= 0) {
            throw new RefundRejectedException("a refund gives back a positive amount, not " + amount);
        }
        if (amount > refundable()) {
            throw new RefundRejectedException("only " + refundable() + " of " + total + " can still be refunded"
                    + (reserved > refunded ? " (" + (reserved - refunded) + " in refunds under way)" : "") + "; " + amount + " was asked");
        }
        return new InvoiceAmounts(total, reserved + amount, refunded);
    }

    /** A reserved refund of {@code amount} succeeded. */
    public InvoiceAmounts refundSucceeded(long amount) {
        return new InvoiceAmounts(total, reserved, refunded + amount);
    }

    /** A reserved refund of {@code amount} failed, or was never sent: its reservation is free again. */
    public InvoiceAmounts refundAbandoned(long amount) {
        return new InvoiceAmounts(total, reserved - amount, refunded);
    }

    public InvoiceStatus status() {
        if (refunded == 0) {
            return InvoiceStatus.PAID;
        }
        return refunded == total ? InvoiceStatus.REFUNDED : InvoiceStatus.PARTIALLY_REFUNDED;
    }
}
