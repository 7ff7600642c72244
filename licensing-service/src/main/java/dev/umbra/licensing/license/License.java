package dev.umbra.licensing.license;

import dev.umbra.events.StreamMark;
import dev.umbra.events.plan.Plan;
import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import io.smallrye.mutiny.Uni;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** The stored form of a {@link LicenseState}, plus its derived plan, status and reason for reads. */
@Entity
@Table(name = "license")
// A named query is translated while the application starts; the first HQL translation of a JVM takes seconds
// of a cold CPU, which on an event loop blocked the first events after every start.
@NamedQuery(name = "License.byGuild", query = "from License where guildId = ?1")
@NamedQuery(name = "License.byGuilds", query = "from License where guildId in ?1")
public class License extends PanacheEntityBase {

    @Id
    @Column(name = "license_id")
    public UUID licenseId;

    @Column(name = "guild_id", nullable = false, unique = true)
    public String guildId;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public Plan plan;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public LicenseStatus status;

    @Column(name = "suspension_reason")
    public String suspensionReason;

    @Enumerated(EnumType.STRING)
    @Column(name = "paid_plan")
    public Plan paidPlan;

    @Column(name = "subscription_id")
    public UUID subscriptionId;

    @Column(name = "expires_at")
    public Instant expiresAt;

    public boolean expired;

    @Enumerated(EnumType.STRING)
    @Column(name = "pending_plan")
    public Plan pendingPlan;

    @Column(name = "pending_plan_at")
    public Instant pendingPlanAt;

    @Column(name = "bot_kicked_at")
    public Instant botKickedAt;

    @Column(name = "subscription_suspended_at")
    public Instant subscriptionSuspendedAt;

    @Column(name = "subscription_suspension_reason")
    public String subscriptionSuspensionReason;

    @Column(name = "deleted_at")
    public Instant deletedAt;

    @Column(name = "guild_event_at")
    public Instant guildEventAt;

    @Column(name = "guild_event_sequence", nullable = false)
    public long guildEventSequence;

    @Column(name = "subscription_event_at")
    public Instant subscriptionEventAt;

    @Column(name = "subscription_event_sequence", nullable = false)
    public long subscriptionEventSequence;

    @Column(name = "updated_at", nullable = false)
    public Instant updatedAt;

    @Version
    public long version;

    public static Uni<License> findByGuild(String guildId) {
        return find("#License.byGuild", guildId).firstResult();
    }

    static Uni<List<License>> byGuilds(List<String> guildIds) {
        return find("#License.byGuilds", guildIds).list();
    }

    LicenseState state() {
        return new LicenseState(licenseId, guildId, paidPlan, subscriptionId, expiresAt, expired, pendingPlan, pendingPlanAt,
                botKickedAt, subscriptionSuspendedAt, subscriptionSuspensionReason, deletedAt, mark(guildEventSequence, guildEventAt),
                mark(subscriptionEventSequence, subscriptionEventAt));
    }

    private static StreamMark mark(long sequence, Instant at) {
        return at == null ? null : new StreamMark(sequence, at);
    }

    void update(LicenseState state, Instant now) {
        licenseId = state.licenseId();
        guildId = state.guildId();
        plan = state.plan();
        status = state.status();
        suspensionReason = state.suspensionReason();
        paidPlan = state.paidPlan();
        subscriptionId = state.subscriptionId();
        expiresAt = state.expiresAt();
        expired = state.expired();
        pendingPlan = state.pendingPlan();
        pendingPlanAt = state.pendingPlanAt();
        botKickedAt = state.botKickedAt();
        subscriptionSuspendedAt = state.subscriptionSuspendedAt();
        subscriptionSuspensionReason = state.subscriptionSuspensionReason();
        deletedAt = state.deletedAt();
        guildEventAt = state.guildEvent() == null ? null : state.guildEvent().at();
        guildEventSequence = state.guildEvent() == null ? 0 : state.guildEvent().sequence();
        subscriptionEventAt = state.subscriptionEvent() == null ? null : state.subscriptionEvent().at();
        subscriptionEventSequence = state.subscriptionEvent() == null ? 0 : state.subscriptionEvent().sequence();
        updatedAt = now;
    }
}
