package dev.umbra.billing.billingkey;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import io.smallrye.mutiny.Uni;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;

/**
 * A charge with a billing key that may still reach the gateway: written in the transaction that prepares it, with the key's
 * row locked, until the longest its call can take; removed once its answer is applied. The key's deletion, which locks the
 * same row, refuses while one is on its way.
 */
@Entity
@Table(name = "billing_key_charge")
public class BillingKeyCharge extends PanacheEntityBase {

    @Id
    @Column(name = "payment_id")
    public UUID paymentId;

    @Column(name = "billing_key_id", nullable = false)
    public UUID billingKeyId;

    @Column(nullable = false)
    public Instant until;

    /** The charge of {@code paymentId} (sent again, when it was sent before) is on its way with {@code billingKeyId} until {@code until}. */
    public static Uni<Void> onItsWay(UUID paymentId, UUID billingKeyId, Instant until) {
        BillingKeyCharge charge = new BillingKeyCharge();
        charge.paymentId = paymentId;
        charge.billingKeyId = billingKeyId;
        charge.until = until;
        return Panache.getSession().chain(session -> session.merge(charge)).replaceWithVoid();
    }

    /** The charge's answer is applied: nothing more of it can reach the gateway. */
    public static Uni<Void> answered(UUID paymentId) {
        return delete("paymentId", paymentId).replaceWithVoid();
    }

    /** Whether a charge with the key may still reach the gateway at {@code now}. */
    static Uni<Boolean> anyOnTheirWay(UUID billingKeyId, Instant now) {
        return count("billingKeyId = ?1 and until > ?2", billingKeyId, now).map(count -> count > 0);
    }
}
