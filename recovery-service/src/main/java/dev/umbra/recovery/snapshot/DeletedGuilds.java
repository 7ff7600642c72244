package dev.umbra.recovery.snapshot;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.umbra.events.EventEnvelope;
import dev.umbra.events.guild.GuildDeleted;
import dev.umbra.platform.inbox.EventChannels;
import dev.umbra.platform.inbox.EventHandlers;
import dev.umbra.platform.inbox.Inbox;
import dev.umbra.platform.workqueue.Outcome;
import dev.umbra.platform.workqueue.WorkHandler;
import dev.umbra.platform.workqueue.WorkItem;
import dev.umbra.platform.workqueue.WorkQueues;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * A guild Discord deleted: its snapshots are kept for {@code recovery.snapshot.kept-after-guild-deleted}
 * from the deletion (no new ones are taken), then purged by the {@value #QUEUE} work queue, each with a
 * SnapshotDeleted. The purge is one item per guild, due at the end of the period, under the guild's
 * snapshot lock like retention; a snapshot a restore under way still reads waits for it to end. A
 * redelivered GuildDeleted finds the guild already recorded and changes nothing.
 */
@ApplicationScoped
public class DeletedGuilds implements WorkHandler {

    public static final String QUEUE = "snapshot-purge";
    static final String CONSUMER = "recovery-guilds";

    private static final String RECORD = """
            insert into deleted_guild (guild_id, deleted_at, purge_at) values (:guildId, :deletedAt, :purgeAt)
            on conflict (guild_id) do nothing""";

    private final Inbox inbox;
    private final WorkQueues queues;
    private final SnapshotService snapshots;
    private final SnapshotSettings settings;
    private final EventHandlers handlers;

    public DeletedGuilds(Inbox inbox, WorkQueues queues, SnapshotService snapshots, SnapshotSettings settings) {
        this.inbox = inbox;
        this.queues = queues;
        this.snapshots = snapshots;
        this.settings = settings;
        this.handlers = EventHandlers.builder().on(GuildDeleted.class, this::onGuildDeleted).build();
    }

    @Incoming(EventChannels.GUILD)
    public Uni<Void> guilds(Message<List<byte[]>> batch) {
        return inbox.consume(CONSUMER, batch, handlers);
    }

    Uni<Void> onGuildDeleted(GuildDeleted event, EventEnvelope envelope) {
        Instant purgeAt = envelope.occurredAt().plus(settings.keptAfterGuildDeleted());
        return Panache.getSession().chain(session -> session.createNativeQuery(RECORD)
                        .setParameter("guildId", event.guildId())
                        .setParameter("deletedAt", envelope.occurredAt())
                        .setParameter("purgeAt", purgeAt)
                        .executeUpdate())
                .chain(recorded -> recorded == 0 ? Uni.createFrom().voidItem()
                        : queues.queue(QUEUE).enqueue(event.guildId(), JsonNodeFactory.instance.objectNode().put("guild_id", event.guildId()),
                                purgeAt));
    }

    @Override
    public String queue() {
        return QUEUE;
    }

    @Override
    public Uni<Outcome> handle(WorkItem item) {
        String guildId = item.payload().path("guild_id").asText();
        return Panache.withTransaction(() -> queues.queue(QUEUE).holdsLease(item).chain(held -> {
            if (!held) {
                return Uni.createFrom().item(Outcome.deferred("the lease was taken over", null));
            }
            // a restore accepted before the deletion still reads its snapshots until it ends (it fails: the guild is gone)
            return snapshots.purge(guildId).map(kept -> kept == 0 ? Outcome.done()
                    : Outcome.deferred(kept + " snapshot(s) kept while a restore under way reads them", null));
        }));
    }
}
