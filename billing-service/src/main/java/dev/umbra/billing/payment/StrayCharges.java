package dev.umbra.billing.payment;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.Locale;
import org.jboss.logging.Logger;

/**
 * Puts a FAILED payment under watch when the gateway may hold its money: it charged another amount than
 * asked, it reports DONE for a payment already given up, or the payment was failed without its word
 * (not found, pending too long), where the charge could still complete. Called in the settlement's
 * transaction, with the payment row locked, so a payment is watched once however many reports race.
 * {@link StrayChargeReturns} looks each one up and gives the money back.
 */
@ApplicationScoped
// at start: its counters exist from zero, before the first stray charge, for the alert's increase()
@Startup
public class StrayCharges {

    private static final Logger LOG = Logger.getLogger(StrayCharges.class);

    private final ReconciliationSettings settings;
    private final MeterRegistry registry;

    StrayCharges(ReconciliationSettings settings, MeterRegistry registry) {
        this.settings = settings;
        this.registry = registry;
        for (StrayChargeStatus status : StrayChargeStatus.values()) {
            counter(status);
        }
    }

    /**
     * Watches {@code payment} if it is FAILED and not watched already; a payment key learned later is kept. A payment paid
     * meanwhile (its callback came first, then the charge's own answer said 500) is never watched: its money is in the books,
     * and giving it back would leave an invoice PAID and a ledger holding money the customer no longer paid.
     */
    public Uni<Void> watch(Payment payment, String paymentKey, String reason, Instant at) {
        if (payment.status != PaymentStatus.FAILED) {
            return Uni.createFrom().voidItem();
        }
        return StrayCharge.<StrayCharge>find("paymentId", payment.id).firstResult().chain(existing -> {
            if (existing != null) {
                if (existing.paymentKey == null && paymentKey != null && existing.watching()) {
                    existing.paymentKey = paymentKey;
                    existing.nextLookAt = at;
                }
                return Uni.createFrom().voidItem();
            }
            StrayCharge stray = StrayCharge.watch(payment, paymentKey, reason, at, settings.strayWatch());
            LOG.debugf("payment %s FAILED (%s): watched as stray charge %s", payment.id, reason, stray.id);
            counter(StrayChargeStatus.WATCHING).increment();
            return stray.persist().replaceWithVoid();
        });
    }

    void resolved(StrayChargeStatus status) {
        counter(status).increment();
    }

    private Counter counter(StrayChargeStatus status) {
        return Counter.builder("umbra.billing.stray.charges")
                .description("Payments FAILED here while the gateway may hold their money: watched, then returned, nothing taken, "
                        + "refused (an operator must act) or unresolved")
                .tag("status", status.name().toLowerCase(Locale.ROOT)).register(registry);
    }
}
