package dev.umbra.billing.billingkey;

import java.util.Objects;

/**
 * The billing key the payment gateway issued: whoever holds it can charge the card, so it lives in
 * memory only as long as a charge needs it, is stored only encrypted ({@link BillingKeyCipher}) and
 * never shows in a log line.
 */
public record GatewayBillingKey(String value) {

    public GatewayBillingKey {
        Objects.requireNonNull(value, "value");
        if (value.isBlank()) {
            throw new IllegalArgumentException("a billing key is never blank");
        }
    }

    @Override
    public String toString() {
        return "GatewayBillingKey[****]";
    }
}
