package dev.umbra.billing.subscription;

import dev.umbra.events.StreamMark;
import dev.umbra.platform.storage.NativeSelects;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import io.smallrye.mutiny.Uni;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.LockModeType;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.time.Instant;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/** The row of a {@link Subscription}: the rules work on the record, this only stores it. */
@Entity(name = "StoredSubscription")
@Table(name = "subscription")
// The renewal scan runs on an event loop moments after every start: named, its HQL is parsed while the application
// starts, not there (a first HQL translation on a cold JVM blocked billing's event loop for seconds).
@NamedQuery(name = "StoredSubscription.due", query = "from StoredSubscription where renewalDueAt <= ?1 and status <> ?2 order by renewalDueAt, id")
@NamedQuery(name = "StoredSubscription.dueAfter", query = "from StoredSubscription where renewalDueAt <= ?1 and status <> ?2"
        + " and (renewalDueAt > ?3 or (renewalDueAt = ?3 and id > ?4)) order by renewalDueAt, id")
public class StoredSubscription extends PanacheEntityBase {

    @Id
    public UUID id;

    @Column(name = "guild_id", nullable = false)
    public String guildId;

    @Column(name = "user_id", nullable = false)
    public UUID userId;

    @Column(name = "billing_key_id", nullable = false)
    public UUID billingKeyId;

    @Column(name = "plan_code", nullable = false)
    public String planCode;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public SubscriptionStatus status;

    @Column(name = "cycle_anchor")
    public Instant cycleAnchor;

    @Column(name = "paid_through", nullable = false)
    public int paidThrough;

    @Column(name = "due_period", nullable = false)
    public int duePeriod;

    @Column(name = "cancel_at_period_end", nullable = false)
    public boolean cancelAtPeriodEnd;

    @Column(name = "pending_plan_code")
    public String pendingPlanCode;

    @Column(name = "failed_attempts", nullable = false)
    public int failedAttempts;

    @Column(name = "next_attempt_at")
    public Instant nextAttemptAt;

    /** Suspension reasons, comma separated. */
    @Column(nullable = false)
    public String suspensions;

    @Column(name = "bot_kicked_at")
    public Instant botKickedAt;

    @Column(name = "bot_kicked_sequence", nullable = false)
    public long botKickedSequence;

    @Column(name = "canceled_at")
    public Instant canceledAt;

    @Column(name = "renewal_due_at")
    public Instant renewalDueAt;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(name = "updated_at", nullable = false)
    public Instant updatedAt;

    @Version
    public long version;

    public Subscription toDomain() {
        return new Subscription(id, guildId, userId, billingKeyId, planCode, status, cycleAnchor == null ? null : new BillingCycle(cycleAnchor),
                paidThrough, duePeriod, cancelAtPeriodEnd, pendingPlanCode, failedAttempts, nextAttemptAt, reasons(),
                botKickedAt == null ? null : new StreamMark(botKickedSequence, botKickedAt), canceledAt);
    }

    static StoredSubscription create(Subscription subscription, Instant at) {
        StoredSubscription row = new StoredSubscription();
        row.id = subscription.id();
        row.guildId = subscription.guildId();
        row.userId = subscription.userId();
        row.createdAt = at;
        row.copy(subscription, at);
        return row;
    }

    /** Takes the values of {@code subscription} (the same one, after a rule). */
    void copy(Subscription subscription, Instant at) {
        if (!subscription.id().equals(id)) {
            throw new IllegalArgumentException("not this subscription: " + subscription.id());
        }
        billingKeyId = subscription.billingKeyId();
        planCode = subscription.planCode();
        status = subscription.status();
        cycleAnchor = subscription.started() ? subscription.cycle().anchor() : null;
        paidThrough = subscription.paidThrough();
        duePeriod = subscription.duePeriod();
        cancelAtPeriodEnd = subscription.cancelAtPeriodEnd();
        pendingPlanCode = subscription.pendingPlanCode();
        failedAttempts = subscription.failedAttempts();
        nextAttemptAt = subscription.nextAttemptAt();
        suspensions = subscription.suspensions().stream().map(Enum::name).sorted().collect(Collectors.joining(","));
        botKickedAt = subscription.botKicked() == null ? null : subscription.botKicked().at();
        botKickedSequence = subscription.botKicked() == null ? 0 : subscription.botKicked().sequence();
        canceledAt = subscription.canceledAt();
        renewalDueAt = subscription.renewalDueAt();
        updatedAt = at;
    }

    private Set<SuspensionReason> reasons() {
        if (suspensions == null || suspensions.isBlank()) {
            return Set.of();
        }
        Set<SuspensionReason> reasons = EnumSet.noneOf(SuspensionReason.class);
        Arrays.stream(suspensions.split(",")).map(SuspensionReason::valueOf).forEach(reasons::add);
        return reasons;
    }

    /** Loaded for a change: the row stays locked until the transaction ends, so concurrent changes apply one after the other. */
    static Uni<StoredSubscription> lockById(UUID id) {
        return findById(id, LockModeType.PESSIMISTIC_WRITE);
    }

    /**
     * Serialises the subscribes of one guild until the transaction ends (a transaction-level advisory
     * lock), so the "already subscribed" check is exact; the unique index stays the backstop.
     */
    static Uni<Void> lockGuild(String guildId) {
        return Panache.getSession().chain(session -> NativeSelects.select(session,
                "select count(*) from (select pg_advisory_xact_lock(hashtext($1))) locked", "subscription-of-guild:" + guildId)).replaceWithVoid();
    }

    /** The guild's subscriptions that are not canceled (at most one, by a unique index), locked for a change. */
    static Uni<List<StoredSubscription>> lockLiveOfGuild(String guildId) {
        return find("guildId = ?1 and status <> ?2", guildId, SubscriptionStatus.CANCELED)
                .withLock(LockModeType.PESSIMISTIC_WRITE).list();
    }

    static Uni<List<StoredSubscription>> lockLivePaidBy(UUID billingKeyId) {
        return find("billingKeyId = ?1 and status <> ?2", billingKeyId, SubscriptionStatus.CANCELED)
                .withLock(LockModeType.PESSIMISTIC_WRITE).list();
    }
}
