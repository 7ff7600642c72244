package dev.umbra.billing.subscription;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.umbra.billing.billingkey.BillingKey;
import dev.umbra.billing.gateway.ChargeOutcome;
import dev.umbra.billing.payment.KeptAttempts;
import dev.umbra.billing.payment.Payment;
import dev.umbra.billing.settings.BillingSettings;
import dev.umbra.platform.storage.RowDeletes;
import dev.umbra.platform.storage.StorageFaults;
import dev.umbra.platform.workqueue.Outcome;
import dev.umbra.platform.workqueue.WorkHandler;
import dev.umbra.platform.workqueue.WorkItem;
import dev.umbra.platform.workqueue.WorkQueue;
import dev.umbra.platform.workqueue.WorkQueues;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.LockModeType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Renewals on the platform's leased work queue {@value #QUEUE}. The scan ({@link #scan}) puts every
 * subscription whose renewal is due on the queue as one item per step, keyed by subscription, period,
 * attempt and the subscription row's version ({@code <id>:p<period>:a<attempt>:v<version>}, or
 * {@code <id>:p<period>:end:v<version>} for a subscription that expires), so scans on several replicas
 * enqueue a step once and workers claim it once. The handler re-reads the subscription under its lease
 * and does only the step the item names: it stores the attempt, charges outside any transaction with the
 * attempt's idempotency key, and applies the outcome (dunning included, in {@link SubscriptionPayments}).
 * An item that finds its subscription changed since the scan is done without charging; the version in the
 * key lets the next scan put the same step in line again once it is due again (a subscription suspended
 * and resumed within the period, a billing key replaced), where a finished item of the same key would keep
 * it out for good. Behind the queue, the payment table's unique index allows one attempt in flight per
 * period, and the gateway sees one idempotency key per attempt.
 */
@ApplicationScoped
public class Renewals implements WorkHandler, KeptAttempts {

    static final String QUEUE = "subscription-renewal";

    private static final Logger LOG = Logger.getLogger(Renewals.class);
    /** How long a renewal waits before it looks again at an upgrade being charged. */
    private static final Duration UPGRADE_WAIT = Duration.ofSeconds(30);

    private final WorkQueue queue;
    private final Charges charges;
    private final SubscriptionChanges changes;
    private final BillingSettings settings;
    private final Clock clock;

    public Renewals(WorkQueues queues, Charges charges, SubscriptionChanges changes, BillingSettings settings, Clock clock) {
        this.queue = queues.queue(QUEUE);
        this.charges = charges;
        this.changes = changes;
        this.settings = settings;
        this.clock = clock;
    }

    @Override
    public String queue() {
        return QUEUE;
    }

    /** One round of the queue by hand (the poller does the same); returns how many items were claimed. */
    public Uni<Integer> runOnce() {
        return queue.runOnce(this);
    }

    /** Enqueues the step of every subscription whose renewal is due; returns how many were due. */
    public Uni<Integer> scan() {
        Instant now = clock.instant();
        return scanPages(now, null, 0);
    }

    /**
     * Every due subscription, a page ({@code scan-limit}) per transaction in (renewal_due_at, id) order:
     * a due step stays due until its renewal settles, so a scan of the first page only would find the same
     * subscriptions again while their charges are in flight (a gateway keeping payments pending, a backlog
     * of the queue) and never reach the others.
     */
    private Uni<Integer> scanPages(Instant now, StoredSubscription after, int scanned) {
        int pageSize = settings.renewals().scanLimit();
        return Panache.withTransaction(() -> duePage(now, after, pageSize).chain(rows -> enqueueEach(rows, now).replaceWith(rows)))
                .chain(rows -> rows.size() < pageSize ? Uni.createFrom().item(scanned + rows.size())
                        : scanPages(now, rows.get(rows.size() - 1), scanned + rows.size()));
    }

    private static Uni<List<StoredSubscription>> duePage(Instant now, StoredSubscription after, int pageSize) {
        if (after == null) {
            return StoredSubscription.<StoredSubscription>find("#StoredSubscription.due", now, SubscriptionStatus.CANCELED).page(0, pageSize).list();
        }
        return StoredSubscription.<StoredSubscription>find("#StoredSubscription.dueAfter", now, SubscriptionStatus.CANCELED, after.renewalDueAt, after.id)
                .page(0, pageSize).list();
    }

    private Uni<Void> enqueueEach(List<StoredSubscription> rows, Instant now) {
        Uni<Void> chain = Uni.createFrom().voidItem();
        for (StoredSubscription row : rows) {
            String key = itemKey(row, now);
            if (key != null) {
                chain = chain.chain(() -> queue.enqueue(key, JsonNodeFactory.instance.objectNode(), now));
            }
        }
        return chain;
    }

    /** The item that does the due step of the subscription stored as {@code row} at {@code at}, or null when nothing is due. */
    static String itemKey(StoredSubscription row, Instant at) {
        Subscription subscription = row.toDomain();
        RenewalStep step = subscription.renewalStep(at);
        if (step instanceof RenewalStep.Charge charge) {
            return subscription.id() + ":p" + charge.period() + ":a" + charge.attempt() + ":v" + row.version;
        }
        if (step instanceof RenewalStep.Expire) {
            return subscription.id() + ":p" + subscription.paidThrough() + ":end:v" + row.version;
        }
        return null;
    }

    /**
     * With the payment's row locked, then the subscription's (the order every settlement keeps), which a try holds while it
     * finds the attempt to send: an unfinished item of the period (to come, under way — leased until its answer is applied —
     * or dead, for an operator) is to send it; else a kept attempt of a subscription not canceled, which charged nothing, is
     * removed and the subscription's step put back in line in the same transaction, since the item of the same key may have
     * finished without sending it. (A scan may put that item in line meanwhile and a worker claim it, locking its row and then
     * waiting for the subscription's: PostgreSQL ends that deadlock, and the run again finds the item under way.) A canceled
     * subscription's attempt is failed by reconciliation instead, and watched as a stray charge: no try will send its key again.
     */
    @Override
    public Uni<Fate> noTraceAtGateway(UUID paymentId, UUID subscriptionId, int period) {
        Instant now = clock.instant();
        String periodItems = subscriptionId + ":p" + period + ":a";
        return Panache.withTransaction(() -> Payment.<Payment>findById(paymentId, LockModeType.PESSIMISTIC_WRITE).chain(payment -> {
            if (payment == null || payment.settled()) {
                return Uni.createFrom().item(Fate.NOT_KEPT);
            }
            return StoredSubscription.lockById(subscriptionId).chain(row -> queue.anyUnfinished(periodItems).chain(unfinished -> {
                if (unfinished) {
                    return Uni.createFrom().item(Fate.TO_BE_SENT_AGAIN);
                }
                if (!payment.keptForResend || row == null || row.status == SubscriptionStatus.CANCELED) {
                    return Uni.createFrom().item(Fate.NOT_KEPT);
                }
                String due = itemKey(row, now);
                return RowDeletes.delete(payment, "payment", payment.id)
                        .chain(() -> due != null && due.startsWith(periodItems)
                                ? queue.schedule(due, JsonNodeFactory.instance.objectNode(), now) : Uni.createFrom().voidItem())
                        .replaceWith(Fate.ROLLED_BACK);
            }));
        }))
                .onFailure(StorageFaults::rolledBackByServer).retry().atMost(3)
                .invoke(fate -> {
                    if (fate == Fate.ROLLED_BACK) {
                        LOG.infof("renewal attempt %s of subscription %s, period %d: the gateway has no trace of it and no try of its "
                                + "renewal is to come; rolled back", paymentId, subscriptionId, period);
                    }
                });
    }

    @Override
    public Uni<Outcome> handle(WorkItem item) {
        UUID subscriptionId = UUID.fromString(item.key().substring(0, item.key().indexOf(':')));
        return prepare(item, subscriptionId).chain(prepared -> {
            if (prepared == null) {
                return Uni.createFrom().item(Outcome.done());
            }
            return charges.send(prepared, Charges.WhenNotSent.SEND_AGAIN).map(settled -> {
                if (settled.outcome() instanceof ChargeOutcome.SurelyNotArrived notArrived) {
                    // Nothing was charged (by the gateway's word): the same step is tried again, without limit, and sends the
                    // attempt kept after a 500 or 429 as it is.
                    return Outcome.unavailable("the payment gateway did not take the charge: " + notArrived.reason(), null);
                }
                return Outcome.done();
            });
        }).onFailure(UpgradeInFlight.class).recoverWithItem(waiting -> Outcome.deferred(waiting.getMessage(),
                clock.instant().plus(UPGRADE_WAIT)));
    }

    /**
     * An upgrade of the subscription is being charged: the renewal is priced for the plan that upgrade may change,
     * so it waits for the upgrade to settle (which need not change the subscription, so the item must stay).
     */
    private static final class UpgradeInFlight extends RuntimeException {
        UpgradeInFlight() {
            super("an upgrade of the subscription is being charged: the renewal waits for it to settle", null, false, false);
        }
    }

    /**
     * Under the item's lease, in one transaction: the subscription's step now; if it is still the one the
     * item names, an expiry is applied at once and a charge is stored as an attempt (null: nothing to send).
     */
    private Uni<Charges.Prepared> prepare(WorkItem item, UUID subscriptionId) {
        Instant now = clock.instant();
        return Panache.withTransaction(() -> queue.holdsLease(item).chain(held -> !held ? Uni.createFrom().nullItem()
                : StoredSubscription.lockById(subscriptionId).chain(row -> {
                    if (row == null) {
                        return Uni.createFrom().nullItem();
                    }
                    if (!item.key().equals(itemKey(row, now))) {
                        return Uni.createFrom().nullItem();
                    }
                    Subscription subscription = row.toDomain();
                    RenewalStep step = subscription.renewalStep(now);
                    if (step instanceof RenewalStep.Expire) {
                        return changes.apply(row, subscription.periodEnded(now)).replaceWith((Charges.Prepared) null);
                    }
                    return attempt(subscription, (RenewalStep.Charge) step, now);
                })))
                .onFailure(StorageFaults::lostRace).recoverWithUni(raced -> {
                    LOG.debugf("renewal %s: an attempt of this period is already in flight", item.key());
                    return Uni.createFrom().nullItem();
                });
    }

    private Uni<Charges.Prepared> attempt(Subscription subscription, RenewalStep.Charge charge, Instant now) {
        return BillingKey.<BillingKey>findById(subscription.billingKeyId(), LockModeType.PESSIMISTIC_WRITE).chain(key -> {
            if (key == null || key.deleted()) {
                // BillingKeyDeleted is on its way and suspends the subscription; nothing can be charged meanwhile.
                return Uni.createFrom().nullItem();
            }
            // The subscription row is locked: what is in flight now stays so until this transaction ends.
            return Charges.inFlight(subscription.id()).chain(inFlight -> {
                String orderName = charge.planCode() + " renewal, period " + charge.period();
                Optional<Payment> stored = inFlight.stream().filter(p -> Payment.PERIOD.equals(p.purpose) && p.period == charge.period()).findFirst();
                if (stored.isPresent() && !stored.get().keptForResend) {
                    // sent and answered with what may mean a charge (pending, a timeout, a reset): the callback and reconciliation
                    // settle it by its order, and the period goes on from there. Never sent again, not by a later item of the
                    // period after the subscription changed (a new card, a kick and a return), nor by a try that took the lease over.
                    return Uni.createFrom().nullItem();
                }
                if (stored.isPresent()) {
                    // stored by an earlier try that may never have sent it (its worker died after the commit, the commit's answer
                    // was lost), or that the gateway said it did nothing with (a 500, a 429): sent again as stored, under its own
                    // key, which a gateway that has it answers again
                    return charges.prepareAgain(stored.get(), key, orderName);
                }
                if (!inFlight.isEmpty()) {
                    return Uni.createFrom().failure(new UpgradeInFlight());
                }
                Payment attempt = Payment.attempt(subscription.id(), charge.period(), Payment.PERIOD, charge.idempotencyKey(),
                        charge.amount(), now);
                attempt.keptForResend = true;
                return attempt.persistAndFlush().chain(persisted -> charges.prepare(attempt, key, orderName));
            });
        });
    }
}
