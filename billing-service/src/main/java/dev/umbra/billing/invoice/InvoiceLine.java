package dev.umbra.billing.invoice;

import java.util.Objects;

/** One line of an invoice: what was charged for, in whole units of the invoice's currency. */
public record InvoiceLine(String description, long amount) {

    public InvoiceLine {
        Objects.requireNonNull(description, "description");
        if (amount <= 0) {
            throw new IllegalArgumentException("an invoice line charges something: " + amount);
        }
    }
}
