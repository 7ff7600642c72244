package dev.umbra.billing.billingkey;

import dev.umbra.platform.storage.NativeSelects;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import io.smallrye.mutiny.Uni;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * A charge with a billing key that may still reach the gateway: written in the transaction that prepares it, with the key's
 * row locked, until the longest its call can take; removed once its answer is applied. The key's deletion, which locks the
 * same row, refuses while one is on its way. Both read the database's clock, so replicas whose clocks disagree agree on it.
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

    private static final String ON_ITS_WAY = """
            insert into billing_key_charge (payment_id, billing_key_id, until)
            values (?1, ?2, clock_timestamp() + cast(?3 as bigint) * interval '1 millisecond')
            on conflict (payment_id) do update set billing_key_id = excluded.billing_key_id, until = excluded.until""";
    private static final String ANY_ON_THEIR_WAY = "select exists (select 1 from billing_key_charge where billing_key_id = $1 and until > clock_timestamp())";

    /** The charge of {@code paymentId} (sent again, when it was sent before) is on its way with {@code billingKeyId} for {@code within} from now. */
    public static Uni<Void> onItsWay(UUID paymentId, UUID billingKeyId, Duration within) {
        return Panache.getSession().chain(session -> session.createNativeQuery(ON_ITS_WAY).setParameter(1, paymentId)
                .setParameter(2, billingKeyId).setParameter(3, within.toMillis()).executeUpdate()).replaceWithVoid();
    }

    /** The charge's answer is applied: nothing more of it can reach the gateway. */
    public static Uni<Void> answered(UUID paymentId) {
        return delete("paymentId", paymentId).replaceWithVoid();
    }

    /** Whether a charge with the key may still reach the gateway now. */
    static Uni<Boolean> anyOnTheirWay(UUID billingKeyId) {
        return Panache.getSession().chain(session -> NativeSelects.select(session, ANY_ON_THEIR_WAY, billingKeyId))
                .map(NativeSelects.single(Boolean.class));
    }
}
