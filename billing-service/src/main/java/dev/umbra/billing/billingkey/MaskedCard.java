package dev.umbra.billing.billingkey;

import java.util.Objects;

/**
 * What a listing may show of a card: its brand and last four digits, nothing else. Built from the
 * gateway's card number (full or already partly masked, e.g. {@code 4330-12**-****-1234}); the number
 * itself is not kept.
 */
public record MaskedCard(String brand, String last4) {

    public MaskedCard {
        Objects.requireNonNull(brand, "brand");
        Objects.requireNonNull(last4, "last4");
        if (brand.isBlank() || brand.length() > 32) {
            throw new IllegalArgumentException("a card brand is 1 to 32 characters");
        }
        if (!last4.matches("[0-9*]{4}")) {
            throw new IllegalArgumentException("last4 is four digits (or masks)");
        }
    }

    public static MaskedCard of(String brand, String cardNumber) {
        Objects.requireNonNull(cardNumber, "cardNumber");
        String compact = cardNumber.replaceAll("[\\s-]", "");
        if (compact.length() < 4 || !compact.matches("[0-9*]+")) {
            throw new IllegalArgumentException("not a card number");
        }
        return new MaskedCard(brand.trim(), compact.substring(compact.length() - 4));
    }

    /** For a listing: {@code VISA •••• 1234}. */
    public String display() {
        return brand + " •••• " + last4;
    }
}
