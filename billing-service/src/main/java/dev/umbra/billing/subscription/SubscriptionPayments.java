package dev.umbra.billing.subscription;

import dev.umbra.billing.invoice.InvoiceContent;
import dev.umbra.billing.invoice.Invoices;
import dev.umbra.billing.invoice.Refunds;
import dev.umbra.billing.payment.Payment;
import dev.umbra.billing.payment.PaymentOutcomes;
import dev.umbra.billing.plan.Plan;
import dev.umbra.billing.plan.PlanCatalogue;
import dev.umbra.billing.settings.BillingSettings;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * What a settled payment does to its subscription: the first charge starts or ends it, a renewal pays
 * the period or moves dunning on, an upgrade changes the plan; a success is invoiced, and refunded when
 * the subscription cannot use it. Runs in the settling transaction,
 * whoever settles (the charge's own answer, the gateway's callback, the reconciliation job), with the
 * subscription row locked so that concurrent changes apply one after the other.
 */
@ApplicationScoped
public class SubscriptionPayments implements PaymentOutcomes {

    static final String UPGRADE_PREFIX = "UPGRADE_";

    private static final Logger LOG = Logger.getLogger(SubscriptionPayments.class);

    private final SubscriptionChanges changes;
    private final BillingSettings settings;
    private final Invoices invoices;
    private final Refunds refunds;

    public SubscriptionPayments(SubscriptionChanges changes, BillingSettings settings, Invoices invoices, Refunds refunds) {
        this.changes = changes;
        this.settings = settings;
        this.invoices = invoices;
        this.refunds = refunds;
    }

    static String upgradePurpose(String planCode) {
        return UPGRADE_PREFIX + planCode;
    }

    /**
     * The subscription takes the payment, and the payment gets its invoice: every success has one, also
     * one the subscription can no longer use (canceled while the charge was in flight, an upgrade quoted
     * for a plan that changed): the money was taken and is booked, then given back in full by a refund of
     * the service's own, scheduled here and sent by {@link dev.umbra.billing.invoice.AutomaticRefunds}.
     */
    @Override
    public Uni<Void> succeeded(Payment payment, Instant at) {
        return StoredSubscription.lockById(payment.subscriptionId).chain(row -> {
            Subscription before = row.toDomain();
            String unusable = null;
            Uni<Subscription> after;
            try {
                Transition transition = success(payment, before, at);
                if (!transition.changed()) {
                    // settled once per payment: a success that changes nothing paid for what the subscription already has
                    unusable = "the subscription already had what payment " + payment.id + " paid for";
                }
                after = changes.apply(row, transition);
            } catch (IllegalTransitionException cannotUseIt) {
                unusable = cannotUseIt.getMessage();
                after = Uni.createFrom().item(before);
            }
            String refused = unusable;
            return after.chain(subscription -> invoices.issue(invoiceOf(payment, before, subscription, at), payment.paidAmount,
                    payment.attemptedAt, at)).chain(invoice -> {
                        if (refused == null) {
                            return Uni.createFrom().voidItem();
                        }
                        // logged before the commit, which may yet roll back and be tried again: the job says what it gave back
                        LOG.debugf("payment %s (%s, period %d) succeeded but subscription %s cannot use it (%s): its refund is scheduled",
                                payment.id, payment.purpose, payment.period, before.id(), refused);
                        return refunds.scheduleFull(invoice, "given back by the service: " + refused, at).replaceWithVoid();
                    });
        }).replaceWithVoid();
    }

    static Transition success(Payment payment, Subscription subscription, Instant at) {
        if (payment.purpose.startsWith(UPGRADE_PREFIX)) {
            return subscription.upgradeCharged(quoteOf(payment, subscription), at);
        }
        return payment.period == 0 && !subscription.started() ? subscription.firstChargeSucceeded(at)
                : subscription.renewalSucceeded(payment.period, payment.id, at);
    }

    /**
     * The quote an upgrade payment was charged for, from what its row recorded: the plan it was quoted
     * from ({@link Payment#quotedFromPlan}), the plan its purpose names, its period, amount and key — so
     * that {@link Subscription#upgradeCharged} refuses a charge priced for a plan the subscription is no
     * longer on. Its purpose and key name only the new plan; a payment stored without the quoted plan
     * (by a replica of an earlier version) is judged on the subscription's plan, as that version did.
     */
    static UpgradeQuote quoteOf(Payment payment, Subscription subscription) {
        String toPlan = payment.purpose.substring(UPGRADE_PREFIX.length());
        String fromPlan = payment.quotedFromPlan != null ? payment.quotedFromPlan : subscription.planCode();
        return new UpgradeQuote(subscription.id(), fromPlan, toPlan, payment.period, payment.amount, payment.idempotencyKey);
    }

    /**
     * What the payment paid for: a period's plan, or an upgrade's prorated share of the paid period
     * from the moment it was charged.
     */
    static InvoiceContent invoiceOf(Payment payment, Subscription before, Subscription after, Instant at) {
        if (payment.purpose.startsWith(UPGRADE_PREFIX)) {
            Plan to = PlanCatalogue.of(payment.purpose.substring(UPGRADE_PREFIX.length()));
            Period paid = before.started() ? before.cycle().period(payment.period) : new BillingCycle(at).period(0);
            Instant from = paid.contains(payment.attemptedAt) ? payment.attemptedAt : paid.start();
            return InvoiceContent.of(payment.id, after.id(), after.userId(), from, paid.end(),
                    "Upgrade to " + to.name() + ", prorated for the rest of period " + paid.number(), payment.paidAmount, to.currency());
        }
        Period period = after.started() ? after.cycle().period(payment.period) : new BillingCycle(at).period(payment.period);
        Plan plan = after.plan();
        return InvoiceContent.of(payment.id, after.id(), after.userId(), period.start(), period.end(),
                plan.name() + " plan, period " + period.number(), payment.paidAmount, plan.currency());
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
