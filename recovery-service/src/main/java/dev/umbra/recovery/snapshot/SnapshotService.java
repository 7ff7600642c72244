package dev.umbra.recovery.snapshot;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.recovery.SnapshotCreated;
import dev.umbra.events.recovery.SnapshotDeleted;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.storage.NativeSelects;
import dev.umbra.platform.web.ProblemException;
import dev.umbra.platform.readmodel.GuildPlans;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.hibernate.reactive.panache.common.WithSession;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.quarkus.panache.common.Sort;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;

/**
 * Takes, reads and deletes snapshots. Taking one applies the plan's retention in the same transaction,
 * under the guild's snapshot lock, so concurrent snapshots of a guild never keep more than the plan
 * allows nor delete one twice; each deletion is a SnapshotDeleted.
 */
@ApplicationScoped
public class SnapshotService {

    private static final String LOCK = "snapshot";
    private static final String NEWEST_FIRST = "select id, trigger from snapshot where guild_id = $1 order by created_at desc, id desc";
    /** What a restore under way still reads: the snapshot it restores, and the one it took of the guild before its first change. */
    private static final String IN_USE = """
            select snapshot_id from restore_job where guild_id = $1 and status in ('QUEUED', 'RUNNING')
            union
            select pre_restore_snapshot_id from restore_job where guild_id = $1 and status in ('QUEUED', 'RUNNING')
              and pre_restore_snapshot_id is not null""";
    private static final String DELETE = "delete from snapshot where id in (:ids)";
    private static final String DELETED_GUILD = "select count(*) from deleted_guild where guild_id = $1";

    private final GuildPlans plans;
    private final OutboxWriter outbox;
    private final Clock clock;

    public SnapshotService(GuildPlans plans, OutboxWriter outbox, Clock clock) {
        this.plans = plans;
        this.outbox = outbox;
        this.clock = clock;
    }

    @WithTransaction
    public Uni<Snapshot> take(String guildId, SnapshotTrigger trigger, SnapshotCodec.Encoded encoded) {
        return refuseIfDeleted(guildId, "no new ones").chain(() -> store(guildId, trigger, encoded));
    }

    /** 409 for a guild Discord deleted (GuildDeleted): its snapshots wait for their purge, and nothing new is done for it. */
    public Uni<Void> refuseIfDeleted(String guildId, String refused) {
        return Panache.getSession().chain(session -> NativeSelects.select(session, DELETED_GUILD, guildId))
                .map(NativeSelects.single(Long.class))
                .invoke(deleted -> {
                    if (deleted > 0) {
                        throw ProblemException.conflict("guild " + guildId + " was deleted: its snapshots are kept until they are purged, " + refused);
                    }
                }).replaceWithVoid();
    }

    /** Stores a snapshot and applies retention, in the caller's transaction. */
    public Uni<Snapshot> store(String guildId, SnapshotTrigger trigger, SnapshotCodec.Encoded encoded) {
        Snapshot snapshot = Snapshot.of(guildId, trigger, encoded, clock.instant());
        return GuildLocks.lock(LOCK, guildId)
                .chain(() -> snapshot.<Snapshot>persist())
                .chain(() -> outbox.publish(new SnapshotCreated(snapshot.id, guildId, trigger.name())))
                .chain(() -> plans.entitlementsOf(guildId))
                .chain(entitlements -> Panache.getSession().chain(session -> session.flush()
                        .chain(() -> NativeSelects.select(session, NEWEST_FIRST, guildId).map(rows -> rows.stream()
                                .map(row -> new Retention.Stored(NativeSelects.value(row[0], UUID.class),
                                        SnapshotTrigger.valueOf(NativeSelects.value(row[1], String.class))))
                                .toList()))
                        .chain(newestFirst -> NativeSelects.select(session, IN_USE, guildId).map(NativeSelects.column(UUID.class))
                                .map(inUse -> Retention.beyond(newestFirst, entitlements.snapshotRetention(), new HashSet<>(inUse))))))
                .chain(beyond -> delete(guildId, beyond))
                .replaceWith(snapshot);
    }

    /**
     * Deletes every snapshot of the guild but those a restore under way still reads, under the guild's
     * snapshot lock (as retention and the acceptance of a restore take it), in the caller's transaction.
     * Returns how many it kept for a restore.
     */
    public Uni<Integer> purge(String guildId) {
        return GuildLocks.lock(LOCK, guildId).chain(() -> Panache.getSession()).chain(session -> NativeSelects
                .select(session, NEWEST_FIRST, guildId).map(rows -> rows.stream().map(row -> NativeSelects.value(row[0], UUID.class)).toList())
                .chain(all -> NativeSelects.select(session, IN_USE, guildId).map(NativeSelects.column(UUID.class)).chain(inUse -> {
                    List<UUID> free = all.stream().filter(id -> !inUse.contains(id)).toList();
                    return delete(guildId, free).replaceWith(all.size() - free.size());
                })));
    }

    /** Deletes the snapshots and publishes a SnapshotDeleted for each, in the caller's transaction. */
    public Uni<Void> delete(String guildId, List<UUID> ids) {
        if (ids.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        List<DomainEvent> events = new ArrayList<>();
        ids.forEach(id -> events.add(new SnapshotDeleted(id, guildId)));
        return Panache.getSession().chain(session -> session.createNativeQuery(DELETE).setParameter("ids", ids).executeUpdate())
                .chain(() -> outbox.publishAll(events))
                .replaceWithVoid();
    }

    @WithSession
    public Uni<List<Snapshot>> ofGuild(String guildId) {
        return Snapshot.<Snapshot>find("guildId", Sort.descending("createdAt", "id"), guildId).list();
    }

    @WithSession
    public Uni<Snapshot> get(String guildId, UUID id) {
        return find(guildId, id);
    }

    /** The snapshot of the guild, or 404; inside a session. */
    public Uni<Snapshot> find(String guildId, UUID id) {
        return Snapshot.<Snapshot>findById(id).map(snapshot -> {
            if (snapshot == null || !snapshot.guildId.equals(guildId)) {
                throw ProblemException.notFound("no snapshot " + id + " of guild " + guildId);
            }
            return snapshot;
        });
    }

    /**
     * The snapshot of the guild, or 404, looked up under the guild's snapshot lock, which the caller's
     * transaction then holds to its end: a snapshot taken meanwhile applies its retention after that, and
     * so sees what the caller wrote (a restore job that needs this snapshot); one taken before has applied
     * it already, and a snapshot it deleted is not found.
     */
    public Uni<Snapshot> findHeld(String guildId, UUID id) {
        return GuildLocks.lock(LOCK, guildId).chain(() -> find(guildId, id));
    }

    @WithSession
    public Uni<SnapshotDiff> diff(String guildId, UUID from, UUID to) {
        return find(guildId, from).chain(before -> find(guildId, to).map(after -> SnapshotDiff.between(before.decoded(), after.decoded())));
    }
}
