package dev.umbra.recovery.antinuke;

import dev.umbra.events.recovery.AntiNukeActioned;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.storage.NativeSelects;
import dev.umbra.platform.workqueue.Outcome;
import dev.umbra.platform.workqueue.WorkHandler;
import dev.umbra.platform.workqueue.WorkItem;
import dev.umbra.platform.workqueue.WorkQueues;
import dev.umbra.recovery.discord.DiscordFault;
import dev.umbra.recovery.discord.DiscordGuilds;
import dev.umbra.recovery.discord.DiscordRejection;
import dev.umbra.recovery.snapshot.GuildStructure;
import dev.umbra.recovery.snapshot.SnapshotCodec;
import dev.umbra.recovery.snapshot.SnapshotService;
import dev.umbra.recovery.snapshot.SnapshotTrigger;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;

/**
 * The response to a burst, for plans with anti-nuke: reads the guild from Discord (renewing the lease
 * after each call: a large guild's read may take longer than a lease), takes the suspects' roles away
 * (setting a member's roles is idempotent, so a repeated try does no harm), then, in one transaction,
 * stores the guild as read as an ANTI_NUKE snapshot and publishes AntiNukeActioned. The actions it
 * names never name a suspect: owners are told them. That transaction marks the incident actioned, and a
 * try that finds it so ends done at once: the queue records the item done only after it commits, so a
 * worker that dies in between leaves the item to be tried again once its lease runs out. The lease
 * fences the tries, so the mark is seen by every try after the one that set it.
 */
@ApplicationScoped
public class AntiNukeResponse implements WorkHandler {

    public static final String QUEUE = "anti-nuke-response";

    private static final String ACTIONED = "select count(*) from anti_nuke_incident where id = $1 and actioned_at is not null";
    private static final String MARK_ACTIONED = "update anti_nuke_incident set actioned_at = :now where id = :id";

    /** This try's lease on the item was taken over: stop, the other worker carries on. */
    private static final class LeaseLost extends RuntimeException {
        LeaseLost() {
            super("the lease was taken over", null, false, false);
        }
    }

    private final DiscordGuilds discord;
    private final SnapshotService snapshots;
    private final OutboxWriter outbox;
    private final WorkQueues queues;
    private final Clock clock;

    public AntiNukeResponse(DiscordGuilds discord, SnapshotService snapshots, OutboxWriter outbox, WorkQueues queues, Clock clock) {
        this.discord = discord;
        this.snapshots = snapshots;
        this.outbox = outbox;
        this.queues = queues;
        this.clock = clock;
    }

    @Override
    public String queue() {
        return QUEUE;
    }

    @Override
    public Uni<Outcome> handle(WorkItem item) {
        UUID incident = UUID.fromString(item.payload().path("incident_id").asText());
        return Panache.withSession(() -> Panache.getSession().chain(session -> NativeSelects.select(session, ACTIONED, incident)))
                .map(NativeSelects.single(Long.class))
                .chain(actioned -> actioned > 0 ? Uni.createFrom().item(Outcome.done()) : respond(item, incident))
                .onFailure(LeaseLost.class).recoverWithItem(lost -> Outcome.deferred(lost.getMessage(), null))
                .onFailure().recoverWithItem(this::outcomeOf);
    }

    private Uni<Outcome> respond(WorkItem item, UUID incident) {
        String guildId = item.payload().path("guild_id").asText();
        List<String> suspects = new ArrayList<>();
        item.payload().path("suspects").forEach(suspect -> suspects.add(suspect.asText()));
        return discord.read(guildId, () -> renewLease(item))
                .chain(guild -> strip(guildId, guild, suspects).chain(stripped -> Panache.withTransaction(
                        () -> queues.queue(QUEUE).holdsLease(item).chain(held -> {
                            if (!held) {
                                return Uni.createFrom().item(Outcome.deferred("the lease was taken over", null));
                            }
                            return snapshots.store(guildId, SnapshotTrigger.ANTI_NUKE, SnapshotCodec.encode(guild))
                                    .chain(() -> outbox.publish(new AntiNukeActioned(guildId, List.of(
                                            "roles removed from " + stripped + (stripped == 1 ? " suspect" : " suspects"),
                                            "snapshot taken"))))
                                    .chain(() -> Panache.getSession().chain(session -> session.createNativeQuery(MARK_ACTIONED)
                                            .setParameter("now", clock.instant()).setParameter("id", incident).executeUpdate()))
                                    .replaceWith(Outcome.done());
                        }))));
    }

    /** Between the calls of the read of the guild, which may outlast a lease: renews it, or ends the try if it was taken over. */
    private Uni<Void> renewLease(WorkItem item) {
        return Panache.withTransaction(() -> queues.queue(QUEUE).holdsLease(item)).invoke(held -> {
            if (!held) {
                throw new LeaseLost();
            }
        }).replaceWithVoid();
    }

    /** Takes every role from each suspect still in the guild with roles; returns how many lost roles. */
    private Uni<Integer> strip(String guildId, GuildStructure guild, List<String> suspects) {
        List<String> withRoles = guild.members().stream().filter(member -> suspects.contains(member.id()) && !member.roles().isEmpty())
                .map(GuildStructure.Member::id).toList();
        Uni<Integer> stripped = Uni.createFrom().item(0);
        for (String suspect : withRoles) {
            stripped = stripped.chain(count -> discord.setMemberRoles(guildId, suspect, List.of()).map(present -> present ? count + 1 : count));
        }
        return stripped;
    }

    private Outcome outcomeOf(Throwable error) {
        if (error instanceof CircuitBreakerOpenException) {
            return Outcome.unavailable("Discord's circuit is open", null);
        }
        if (error instanceof DiscordFault fault) {
            return Outcome.unavailable(fault.getMessage(), fault.retryAfter() == null ? null : clock.instant().plus(fault.retryAfter()));
        }
        if (error instanceof DiscordRejection rejection && rejection.status() == 401) {
            // the bot's token, refused for every guild alike (being rotated, say): waited out like an outage
            return Outcome.unavailable(rejection.account(), null);
        }
        if (error instanceof DiscordRejection rejection) {
            return Outcome.failed(rejection.getMessage());
        }
        return dev.umbra.platform.storage.StorageFaults.isTransient(error) ? Outcome.unavailable(error.toString(), null)
                : Outcome.failed(error.toString());
    }
}
