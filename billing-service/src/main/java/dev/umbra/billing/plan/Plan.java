package dev.umbra.billing.plan;

import java.util.Objects;

/**
 * A plan of the catalogue. Prices are whole won: KRW has no minor unit, so {@code 9900} is ₩9,900.
 * A higher {@code rank} is a higher plan.
 */
public record Plan(String code, String name, long monthlyPrice, String currency, int rank) {

    public Plan {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(currency, "currency");
        if (monthlyPrice < 0) {
            throw new IllegalArgumentException("a price is never negative: " + code);
        }
    }

    /** FREE needs no subscription; only a paid plan can be subscribed to. */
    public boolean isPaid() {
        return monthlyPrice > 0;
    }

    public boolean isAbove(Plan other) {
        return rank > other.rank;
    }
}
