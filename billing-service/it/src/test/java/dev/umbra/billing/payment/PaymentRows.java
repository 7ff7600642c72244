package dev.umbra.billing.payment;

import dev.umbra.billing.billingkey.BillingKeyCipher;
import dev.umbra.billing.billingkey.GatewayBillingKey;
import dev.umbra.testing.Database;
import io.quarkus.arc.Arc;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;

/** The rows a settlement test needs (a billing key, a PENDING subscription, its first payment), inserted with plain SQL. */
public final class PaymentRows {

    /** A first charge of a fresh subscription: its ids and the order id that names it at the gateway. */
    public record FirstCharge(UUID subscriptionId, UUID paymentId, String orderId, long amount) {
    }

    private PaymentRows() {
    }

    /** A PENDING subscription and its IN_PROGRESS first payment, attempted at {@code attemptedAt}, with the gateway's key if known. */
    public static FirstCharge inProgress(Database db, long amount, String paymentKey, Instant attemptedAt) {
        UUID billingKey = UUID.randomUUID();
        UUID subscription = UUID.randomUUID();
        UUID payment = UUID.randomUUID();
        String orderId = "pay-" + payment;
        Timestamp at = Timestamp.from(attemptedAt);
        // a key the service can decrypt: once settled, the subscription is the renewals' like any other
        String encrypted = Arc.container().instance(BillingKeyCipher.class).get()
                .encrypt(new GatewayBillingKey("bk-settlement-test-" + billingKey), billingKey);
        db.execute("insert into billing_key (id, user_id, encrypted_key, card_brand, card_last4, created_at) values (?, ?, ?, 'SANDBOX', '1234', ?)",
                billingKey, UUID.randomUUID(), encrypted, at);
        db.execute("""
                insert into subscription (id, guild_id, user_id, billing_key_id, plan_code, status, paid_through, due_period, created_at, updated_at)
                values (?, ?, ?, ?, 'PRO', 'PENDING', -1, 0, ?, ?)""",
                subscription, Long.toString(100_000_000_000_000_000L + (long) (Math.random() * 1e17)), UUID.randomUUID(), billingKey, at, at);
        db.execute("""
                insert into payment (id, subscription_id, period, purpose, order_id, idempotency_key, amount, status, external_payment_key,
                                     attempted_at, created_at)
                values (?, ?, 0, 'PERIOD', ?, ?, ?, 'IN_PROGRESS', ?, ?, ?)""",
                payment, subscription, orderId, "sub-" + subscription + "-p0-a1", amount, paymentKey, at, at);
        return new FirstCharge(subscription, payment, orderId, amount);
    }
}
