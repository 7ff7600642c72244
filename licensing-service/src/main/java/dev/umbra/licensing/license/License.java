package dev.umbra.licensing.license;

import dev.umbra.events.StreamMark;
import dev.umbra.events.plan.Plan;
import dev.umbra.platform.storage.NativeSelects;
import io.quarkus.hibernate.reactive.panache.Panache;
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
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.IntFunction;

/** The stored form of a {@link LicenseState}, plus its derived plan, status and reason for reads. */
@Entity
@Table(name = "license")
// A named query is translated while the application starts; the first HQL translation of a JVM takes seconds
// of a cold CPU, which on an event loop blocked the first events after every start.
@NamedQuery(name = "License.byGuild", query = "from License where guildId = ?1")
public class License extends PanacheEntityBase {

    private static final String IDS_OF_GUILDS = "select license_id from license where guild_id = any($1)";

    // New licenses come in runs (a burst of installs, a backlog): one statement stores a run, without Hibernate's
    // per-entity insert actions (a fifth of licensing's Java time draining a backlog of installs).
    private static final String INSERT_ALL = """
            insert into license (license_id, guild_id, plan, status, suspension_reason, paid_plan, subscription_id, expires_at, expired,
                pending_plan, pending_plan_at, bot_kicked_at, subscription_suspended_at, subscription_suspension_reason, deleted_at,
                guild_event_at, guild_event_sequence, subscription_event_at, subscription_event_sequence, subscription_event_committed_at,
                plan_event_at, plan_event_sequence, pending_plan_event_at, pending_plan_event_sequence, suspension_event_at,
                suspension_event_sequence, updated_at, version)
            select *, 0 from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::uuid[], $8::timestamptz[],
                $9::boolean[], $10::text[], $11::timestamptz[], $12::timestamptz[], $13::timestamptz[], $14::text[], $15::timestamptz[],
                $16::timestamptz[], $17::int8[], $18::timestamptz[], $19::int8[], $20::timestamptz[], $21::timestamptz[], $22::int8[],
                $23::timestamptz[], $24::int8[], $25::timestamptz[], $26::int8[], $27::timestamptz[])""";

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

    @Column(name = "subscription_event_committed_at")
    public Instant subscriptionEventCommittedAt;

    @Column(name = "plan_event_at")
    public Instant planEventAt;

    @Column(name = "plan_event_sequence", nullable = false)
    public long planEventSequence;

    @Column(name = "pending_plan_event_at")
    public Instant pendingPlanEventAt;

    @Column(name = "pending_plan_event_sequence", nullable = false)
    public long pendingPlanEventSequence;

    @Column(name = "suspension_event_at")
    public Instant suspensionEventAt;

    @Column(name = "suspension_event_sequence", nullable = false)
    public long suspensionEventSequence;

    @Column(name = "updated_at", nullable = false)
    public Instant updatedAt;

    @Version
    public long version;

    public static Uni<License> findByGuild(String guildId) {
        return find("#License.byGuild", guildId).firstResult();
    }

    /**
     * The licenses of these guilds, managed by the session. Their ids first, with one statement whatever the number of
     * guilds (an HQL {@code in} list is translated anew for every call: a twelfth of a backlog drain's Java time), then
     * the entities by id; a run of new guilds has none, so it loads nothing.
     */
    static Uni<List<License>> byGuilds(List<String> guildIds) {
        return Panache.getSession().chain(session -> NativeSelects.select(session, IDS_OF_GUILDS, (Object) guildIds.toArray(String[]::new))
                .map(NativeSelects.column(UUID.class))
                .chain(ids -> ids.isEmpty() ? Uni.createFrom().item(List.<License>of())
                        : session.find(License.class, ids.toArray()).map(found -> found.stream().filter(Objects::nonNull).toList())));
    }

    /** Stores new licenses with one statement, in the session's transaction; they are not managed by the session. */
    static Uni<Void> insertAll(List<License> created) {
        Object[] columns = {
                column(created, l -> l.licenseId, UUID[]::new),
                column(created, l -> l.guildId, String[]::new),
                column(created, l -> name(l.plan), String[]::new),
                column(created, l -> name(l.status), String[]::new),
                column(created, l -> l.suspensionReason, String[]::new),
                column(created, l -> name(l.paidPlan), String[]::new),
                column(created, l -> l.subscriptionId, UUID[]::new),
                column(created, l -> l.expiresAt, Instant[]::new),
                column(created, l -> l.expired, Boolean[]::new),
                column(created, l -> name(l.pendingPlan), String[]::new),
                column(created, l -> l.pendingPlanAt, Instant[]::new),
                column(created, l -> l.botKickedAt, Instant[]::new),
                column(created, l -> l.subscriptionSuspendedAt, Instant[]::new),
                column(created, l -> l.subscriptionSuspensionReason, String[]::new),
                column(created, l -> l.deletedAt, Instant[]::new),
                column(created, l -> l.guildEventAt, Instant[]::new),
                column(created, l -> l.guildEventSequence, Long[]::new),
                column(created, l -> l.subscriptionEventAt, Instant[]::new),
                column(created, l -> l.subscriptionEventSequence, Long[]::new),
                column(created, l -> l.subscriptionEventCommittedAt, Instant[]::new),
                column(created, l -> l.planEventAt, Instant[]::new),
                column(created, l -> l.planEventSequence, Long[]::new),
                column(created, l -> l.pendingPlanEventAt, Instant[]::new),
                column(created, l -> l.pendingPlanEventSequence, Long[]::new),
                column(created, l -> l.suspensionEventAt, Instant[]::new),
                column(created, l -> l.suspensionEventSequence, Long[]::new),
                column(created, l -> l.updatedAt, Instant[]::new)};
        return Panache.getSession().chain(session -> NativeSelects.select(session, INSERT_ALL, columns)).replaceWithVoid();
    }

    private static <T> T[] column(List<License> licenses, Function<License, T> value, IntFunction<T[]> array) {
        return licenses.stream().map(value).toArray(array);
    }

    private static String name(Enum<?> value) {
        return value == null ? null : value.name();
    }

    LicenseState state() {
        return new LicenseState(licenseId, guildId, paidPlan, subscriptionId, expiresAt, expired, pendingPlan, pendingPlanAt,
                botKickedAt, subscriptionSuspendedAt, subscriptionSuspensionReason, deletedAt, mark(guildEventSequence, guildEventAt, null),
                mark(subscriptionEventSequence, subscriptionEventAt, subscriptionEventCommittedAt), mark(planEventSequence, planEventAt, null),
                mark(pendingPlanEventSequence, pendingPlanEventAt, null), mark(suspensionEventSequence, suspensionEventAt, null));
    }

    private static StreamMark mark(long sequence, Instant at, Instant committedAt) {
        return at == null ? null : new StreamMark(sequence, at, committedAt);
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
        subscriptionEventCommittedAt = state.subscriptionEvent() == null ? null : state.subscriptionEvent().committedAt();
        planEventAt = state.planEvent() == null ? null : state.planEvent().at();
        planEventSequence = state.planEvent() == null ? 0 : state.planEvent().sequence();
        pendingPlanEventAt = state.pendingPlanEvent() == null ? null : state.pendingPlanEvent().at();
        pendingPlanEventSequence = state.pendingPlanEvent() == null ? 0 : state.pendingPlanEvent().sequence();
        suspensionEventAt = state.suspensionEvent() == null ? null : state.suspensionEvent().at();
        suspensionEventSequence = state.suspensionEvent() == null ? 0 : state.suspensionEvent().sequence();
        updatedAt = now;
    }
}
