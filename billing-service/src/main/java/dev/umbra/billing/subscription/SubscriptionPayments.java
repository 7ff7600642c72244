package dev.umbra.billing.subscription;

import dev.umbra.billing.payment.Payment;
import dev.umbra.billing.payment.PaymentOutcomes;
import dev.umbra.billing.settings.BillingSettings;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * What a settled payment does to its subscription: the first charge starts or ends it, a renewal pays
 * the period or moves dunning on, an upgrade changes the plan. Runs in the settling transaction,
 * whoever settles (the charge's own answer, the gateway's callback, the reconciliation job), with the
 * subscription row locked so that concurrent changes apply one after the other.
 */
@ApplicationScoped
public class SubscriptionPayments implements PaymentOutcomes {

    static final String UPGRADE_PREFIX = "UPGRADE_";

    private static final Logger LOG = Logger.getLogger(SubscriptionPayments.class);

    private final SubscriptionChanges changes;
    private final BillingSettings settings;

    public SubscriptionPayments(SubscriptionChanges changes, BillingSettings settings) {
        this.changes = changes;
        this.settings = settings;
    }

    static String upgradePurpose(String planCode) {
        return UPGRADE_PREFIX + planCode;
    }

    @Override
    public Uni<Void> succeeded(Payment payment, Instant at) {
        return change(payment, subscription -> {
            try {
                if (payment.purpose.startsWith(UPGRADE_PREFIX)) {
                    String toPlan = payment.purpose.substring(UPGRADE_PREFIX.length());
                    return subscription.upgradeCharged(new UpgradeQuote(subscription.id(), subscription.planCode(), toPlan, payment.period,
                            payment.amount, payment.idempotencyKey), at);
                }
                return payment.period == 0 && !subscription.started() ? subscription.firstChargeSucceeded(at)
                        : subscription.renewalSucceeded(payment.period, payment.id, at);
            } catch (IllegalTransitionException cannotUseIt) {
                // Money was taken for something the subscription no longer wants; refunds are the invoices' work.
                LOG.warnf("payment %s (%s, period %d) succeeded but subscription %s cannot use it, to be refunded: %s", payment.id,
                        payment.purpose, payment.period, subscription.id(), cannotUseIt.getMessage());
                return null;
            }
        });
    }

    @Override
    public Uni<Void> failed(Payment payment, Instant at) {
        return change(payment, subscription -> {
            if (payment.purpose.startsWith(UPGRADE_PREFIX)) {
                return null;
            }
            if (payment.period == 0 && !subscription.started()) {
                return subscription.firstChargeFailed(at);
            }
            try {
                return subscription.renewalFailed(payment.period, subscription.failedAttempts() + 1, payment.id, at,
                        settings.dunning().rules());
            } catch (IllegalTransitionException stale) {
                LOG.infof("failed payment %s of period %d no longer concerns subscription %s: %s", payment.id, payment.period,
                        subscription.id(), stale.getMessage());
                return null;
            }
        });
    }

    /** {@code rule} returns null when the payment changes nothing. */
    private Uni<Void> change(Payment payment, Function<Subscription, Transition> rule) {
        return StoredSubscription.lockById(payment.subscriptionId).chain(row -> {
            Transition transition = rule.apply(row.toDomain());
            return transition == null ? Uni.createFrom().voidItem() : changes.apply(row, transition).replaceWithVoid();
        });
    }
}
