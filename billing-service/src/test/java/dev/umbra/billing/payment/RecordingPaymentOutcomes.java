package dev.umbra.billing.payment;

import io.quarkus.arc.DefaultBean;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * Stands in for the subscriptions' {@link PaymentOutcomes} until it is merged (a default bean: the real
 * one replaces it). It leaves its mark where the real one does, on the paid subscription in the
 * settling transaction, so a settlement rolled back (a lost race) leaves none: a first charge that
 * succeeded makes it ACTIVE, one that failed CANCELED, and each call moves its version by one. Tests
 * read "one outcome" as version 1.
 */
@DefaultBean
@ApplicationScoped
public class RecordingPaymentOutcomes implements PaymentOutcomes {

    private static final String APPLY = """
            update subscription set status = ?2, failed_attempts = failed_attempts + ?3, updated_at = ?4, version = version + 1
            where id = ?1""";

    @Override
    public Uni<Void> succeeded(Payment payment, Instant at) {
        return mark(payment, "ACTIVE", 0, at);
    }

    @Override
    public Uni<Void> failed(Payment payment, Instant at) {
        return mark(payment, "CANCELED", 1, at);
    }

    private static Uni<Void> mark(Payment payment, String status, int failed, Instant at) {
        return Panache.getSession().chain(session -> session.createNativeQuery(APPLY)
                .setParameter(1, payment.subscriptionId).setParameter(2, status).setParameter(3, failed)
                .setParameter(4, at.atOffset(ZoneOffset.UTC)).executeUpdate()).replaceWithVoid();
    }
}
