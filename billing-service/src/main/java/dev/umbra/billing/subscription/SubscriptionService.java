package dev.umbra.billing.subscription;

import dev.umbra.billing.access.Caller;
import dev.umbra.billing.billingkey.BillingKey;
import dev.umbra.billing.payment.Payment;
import dev.umbra.billing.plan.Plan;
import dev.umbra.billing.plan.PlanCatalogue;
import dev.umbra.events.EventEnvelope;
import dev.umbra.events.StreamMark;
import dev.umbra.events.billing.BillingKeyDeleted;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.events.guild.GuildDeleted;
import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.web.ProblemException;
import io.quarkus.hibernate.reactive.panache.common.WithSession;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * Subscriptions: each command is a transaction that applies a rule of {@link Subscription} and
 * publishes its events; a command that charges stores the attempt first and lets {@link Charges} send
 * it outside the transaction. The consumers of other contexts' events apply their rules the same way,
 * inside the inbox's transaction.
 */
@ApplicationScoped
public class SubscriptionService {

    /** A request to subscribe a guild; the user pays with one of their billing keys. */
    public record Subscribe(String guildId, UUID userId, String planCode, UUID billingKeyId) {
    }

    /** A plan change: the subscription after it; for an upgrade, its prorated charge and how it went. */
    public record PlanChange(Subscription subscription, Charges.Prepared upgradeCharge, Charges.Settled upgrade) {
    }

    private final Charges charges;
    private final SubscriptionChanges changes;
    private final Clock clock;

    public SubscriptionService(Charges charges, SubscriptionChanges changes, Clock clock) {
        this.charges = charges;
        this.changes = changes;
        this.clock = clock;
    }

    /** PENDING with its first attempt, the charge, its outcome: three steps, no transaction across the gateway call. */
    public Uni<Charges.Settled> subscribe(Subscribe request) {
        return openWithFirstAttempt(request).chain(prepared -> charges.send(prepared, Charges.WhenNotSent.FAIL));
    }

    @WithTransaction
    @DatabaseGuard
    Uni<Charges.Prepared> openWithFirstAttempt(Subscribe request) {
        Plan plan = PlanCatalogue.of(request.planCode());
        Instant now = clock.instant();
        return BillingKey.lockLiveToCharge(request.userId(), request.billingKeyId()).chain(key -> {
            if (key == null) {
                throw ProblemException.unprocessable("billing key " + request.billingKeyId() + " is not a billing key of this user");
            }
            return StoredSubscription.lockGuild(request.guildId())
                    .chain(() -> StoredSubscription.count("guildId = ?1 and status <> ?2", request.guildId(), SubscriptionStatus.CANCELED))
                    .chain(live -> {
                        if (live > 0) {
                            throw ProblemException.conflict("guild " + request.guildId() + " already has a subscription");
                        }
                        Subscription opened = Subscription.open(UUID.randomUUID(), request.guildId(), request.userId(), key.id, plan);
                        RenewalStep.Charge first = opened.firstCharge();
                        Payment attempt = Payment.attempt(opened.id(), first.period(), Payment.PERIOD, first.idempotencyKey(),
                                first.amount(), now);
                        return StoredSubscription.create(opened, now).persistAndFlush()
                                .chain(() -> attempt.persistAndFlush())
                                .chain(stored -> charges.prepare(attempt, key, plan.name() + " subscription"));
                    });
        });
    }

    @WithSession
    @DatabaseGuard
    public Uni<Subscription> get(UUID id, JsonWebToken caller) {
        return StoredSubscription.<StoredSubscription>findById(id).map(row -> {
            return allowed(row, id, caller).toDomain();
        });
    }

    /** The guild's subscriptions, newest first; a user sees only those they pay for. */
    @WithSession
    @DatabaseGuard
    public Uni<List<Subscription>> ofGuild(String guildId, JsonWebToken caller) {
        return StoredSubscription.<StoredSubscription>list("guildId = ?1 order by createdAt desc", guildId)
                .map(rows -> rows.stream().filter(row -> Caller.mayActFor(caller, row.userId)).map(StoredSubscription::toDomain).toList());
    }

    @WithSession
    @DatabaseGuard
    public Uni<List<Subscription>> ofUser(UUID userId) {
        return StoredSubscription.<StoredSubscription>list("userId = ?1 order by createdAt desc", userId)
                .map(rows -> rows.stream().map(StoredSubscription::toDomain).toList());
    }

    @WithTransaction
    @DatabaseGuard
    public Uni<Subscription> cancel(UUID id, boolean atPeriodEnd, JsonWebToken caller) {
        Instant now = clock.instant();
        if (!atPeriodEnd) {
            // a charge in flight that succeeds after it is given back (PaymentOutcomes)
            return change(id, caller, s -> s.cancelNow(now));
        }
        return lockFor(id, caller).call(row -> noChargeInFlight(row.id, "a cancel at period end"))
                .chain(row -> changes.apply(row, row.toDomain().cancelAtPeriodEnd(now)));
    }

    /**
     * 409 while a charge of the subscription is in flight: a renewal or an upgrade settles against the plan it was
     * priced for, so a plan change or a cancel at period end accepted meanwhile could leave a period paid at one
     * plan's price and served at another's. Asked with the subscription row locked.
     */
    private static Uni<Void> noChargeInFlight(UUID subscriptionId, String what) {
        return Charges.anyInFlight(subscriptionId).invoke(inFlight -> {
            if (inFlight) {
                throw ProblemException.conflict(what + " waits for the subscription's charge in flight (a renewal or an upgrade) to "
                        + "settle: ask again in a few minutes");
            }
        }).replaceWithVoid();
    }

    /** Pays with another of the user's billing keys from now on; a subscription suspended for its deleted key resumes. */
    @WithTransaction
    @DatabaseGuard
    public Uni<Subscription> payWith(UUID id, UUID billingKeyId, JsonWebToken caller) {
        Instant now = clock.instant();
        return lockFor(id, caller).chain(row -> BillingKey.lockLive(row.userId, billingKeyId).chain(key -> {
            if (key == null) {
                throw ProblemException.unprocessable("billing key " + billingKeyId + " is not a live billing key of the subscription's user (unknown, deleted or another user's)");
            }
            return changes.apply(row, row.toDomain().payWith(key.id, now));
        }));
    }

    /** Upgrade (charged now, prorated, the plan changes when the charge succeeds) or downgrade (from the next period). */
    public Uni<PlanChange> changePlan(UUID id, String planCode, JsonWebToken caller) {
        return startPlanChange(id, planCode, caller).chain(change -> change.upgradeCharge() == null ? Uni.createFrom().item(change)
                : charges.send(change.upgradeCharge(), Charges.WhenNotSent.FAIL).map(settled -> new PlanChange(settled.subscription(), null, settled)));
    }

    @WithTransaction
    @DatabaseGuard
    Uni<PlanChange> startPlanChange(UUID id, String planCode, JsonWebToken caller) {
        Plan to = PlanCatalogue.of(planCode);
        Instant now = clock.instant();
        return lockFor(id, caller).call(row -> noChargeInFlight(row.id, "a plan change")).chain(row -> {
            Subscription subscription = row.toDomain();
            if (!to.isAbove(subscription.plan())) {
                return changes.apply(row, subscription.downgrade(to, now)).map(done -> new PlanChange(done, null, null));
            }
            UpgradeQuote firstAttempt = subscription.quoteUpgrade(to, now);
            return BillingKey.lockLiveToCharge(subscription.userId(), subscription.billingKeyId()).chain(key -> {
                if (key == null) {
                    throw ProblemException.unprocessable("the subscription's billing key was deleted; add one first");
                }
                String purpose = SubscriptionPayments.upgradePurpose(to.code());
                return Charges.attempts(subscription.id(), firstAttempt.period(), purpose).chain(earlier -> {
                    if (earlier.succeeded()) {
                        // one success per period and purpose (one_successful_payment): an upgrade charged and given back (the
                        // plan moved while it was charged) leaves no room for a second charge, which could never settle
                        throw ProblemException.conflict("an upgrade to " + to.code() + " was charged in period " + firstAttempt.period()
                                + " and given back, as the plan changed meanwhile; it can be asked for again from the next period");
                    }
                    UpgradeQuote quote = firstAttempt.attempt(earlier.count() + 1);
                    Payment attempt = Payment.attempt(subscription.id(), quote.period(), purpose, quote.idempotencyKey(), quote.amount(), now);
                    // what the amount was priced from: its success is judged against this quote, not the plan it finds then
                    attempt.quotedFromPlan = quote.fromPlan();
                    return attempt.persistAndFlush()
                            .chain(stored -> charges.prepare(attempt, key, "Upgrade to " + to.name()))
                            .map(prepared -> new PlanChange(subscription, prepared, null));
                });
            });
        });
    }

    // --- other contexts' events, inside the inbox transaction ------------------------------------

    Uni<Void> onBotKicked(BotKicked event, EventEnvelope envelope) {
        return StoredSubscription.lockLiveOfGuild(event.guildId())
                .chain(rows -> applyEach(rows, s -> s.suspend(SuspensionReason.BOT_KICKED, StreamMark.of(envelope))));
    }

    Uni<Void> onBotInstalled(BotInstalled event, EventEnvelope envelope) {
        return StoredSubscription.lockLiveOfGuild(event.guildId())
                .chain(rows -> applyEach(rows, s -> s.botBack(StreamMark.of(envelope))));
    }

    Uni<Void> onGuildDeleted(GuildDeleted event, EventEnvelope envelope) {
        return StoredSubscription.lockLiveOfGuild(event.guildId())
                .chain(rows -> applyEach(rows, s -> s.guildDeleted(envelope.occurredAt())));
    }

    Uni<Void> onBillingKeyDeleted(BillingKeyDeleted event, EventEnvelope envelope) {
        return StoredSubscription.lockLivePaidBy(event.billingKeyId())
                .chain(rows -> applyEach(rows, s -> s.suspend(SuspensionReason.BILLING_KEY_DELETED, StreamMark.of(envelope))));
    }

    private Uni<Void> applyEach(List<StoredSubscription> rows, Function<Subscription, Transition> rule) {
        Uni<Void> chain = Uni.createFrom().voidItem();
        for (StoredSubscription row : rows) {
            chain = chain.chain(() -> changes.apply(row, rule.apply(row.toDomain())).replaceWithVoid());
        }
        return chain;
    }

    private Uni<Subscription> change(UUID id, JsonWebToken caller, Function<Subscription, Transition> rule) {
        return lockFor(id, caller).chain(row -> changes.apply(row, rule.apply(row.toDomain())));
    }

    private static Uni<StoredSubscription> lockFor(UUID id, JsonWebToken caller) {
        return StoredSubscription.lockById(id).map(row -> allowed(row, id, caller));
    }

    private static StoredSubscription allowed(StoredSubscription row, UUID id, JsonWebToken caller) {
        if (row == null) {
            throw ProblemException.notFound("no subscription " + id);
        }
        if (!Caller.mayActFor(caller, row.userId)) {
            throw Caller.forbidden();
        }
        return row;
    }
}
