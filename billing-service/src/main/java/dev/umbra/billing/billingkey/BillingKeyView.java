package dev.umbra.billing.billingkey;

import java.time.Instant;
import java.util.UUID;

/** A billing key as answered: the masked card only, never the key. */
public record BillingKeyView(UUID id, UUID userId, String cardBrand, String cardLast4, String card, Instant createdAt) {

    static BillingKeyView of(BillingKey key) {
        MaskedCard card = key.card();
        return new BillingKeyView(key.id, key.userId, card.brand(), card.last4(), card.display(), key.createdAt);
    }
}
