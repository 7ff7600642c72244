package dev.umbra.billing.billingkey;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import io.smallrye.mutiny.Uni;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.LockModeType;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** A user's billing key: the gateway's key only encrypted, the card only masked. Deleting keeps the row (subscriptions reference it). */
@Entity
@Table(name = "billing_key")
public class BillingKey extends PanacheEntityBase {

    @Id
    public UUID id;

    @Column(name = "user_id", nullable = false)
    public UUID userId;

    /** {@link BillingKeyCipher}'s stored form; bound to this row's id. */
    @Column(name = "encrypted_key", nullable = false)
    public String encryptedKey;

    @Column(name = "card_brand", nullable = false)
    public String cardBrand;

    @Column(name = "card_last4", nullable = false)
    public String cardLast4;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(name = "deleted_at")
    public Instant deletedAt;

    @Version
    public long version;

    public boolean deleted() {
        return deletedAt != null;
    }

    public MaskedCard card() {
        return new MaskedCard(cardBrand, cardLast4);
    }

    /** The user's key that is not deleted, or null. */
    /**
     * The user's live key, share-locked until the transaction ends, for a subscription that starts paying
     * with it: a concurrent delete waits for that transaction, so its BillingKeyDeleted finds the
     * subscription paying with the key, and a delete that committed first is seen here.
     */
    public static Uni<BillingKey> lockLive(UUID userId, UUID id) {
        return find("id = ?1 and userId = ?2 and deletedAt is null", id, userId).withLock(LockModeType.PESSIMISTIC_READ).firstResult();
    }

    /**
     * The user's live key, locked until the transaction ends, for a charge to be prepared with it: the charge is written on its
     * way ({@link BillingKeyCharge}), and a delete, which locks the key the same way, either committed first and is seen here,
     * or waits and then finds the charge.
     */
    public static Uni<BillingKey> lockLiveToCharge(UUID userId, UUID id) {
        return find("id = ?1 and userId = ?2 and deletedAt is null", id, userId).withLock(LockModeType.PESSIMISTIC_WRITE).firstResult();
    }

    static Uni<List<BillingKey>> listLive(UUID userId) {
        return list("userId = ?1 and deletedAt is null order by createdAt", userId);
    }

    @Override
    public String toString() {
        return "BillingKey[" + id + ", " + card().display() + "]";
    }
}
