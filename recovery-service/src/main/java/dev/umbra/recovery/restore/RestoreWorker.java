package dev.umbra.recovery.restore;

import dev.umbra.events.recovery.RestoreCompleted;
import dev.umbra.events.recovery.RestoreFailed;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.storage.NativeSelects;
import dev.umbra.platform.storage.StorageFaults;
import dev.umbra.platform.workqueue.Outcome;
import dev.umbra.platform.workqueue.WorkHandler;
import dev.umbra.platform.workqueue.WorkItem;
import dev.umbra.platform.workqueue.WorkQueues;
import dev.umbra.recovery.antinuke.AntiNukeSuspects;
import dev.umbra.recovery.discord.DiscordFault;
import dev.umbra.recovery.discord.DiscordGuilds;
import dev.umbra.recovery.discord.DiscordRejection;
import dev.umbra.recovery.discord.DiscordSettings;
import dev.umbra.recovery.snapshot.GuildStructure;
import dev.umbra.recovery.snapshot.Snapshot;
import dev.umbra.recovery.snapshot.SnapshotCodec;
import dev.umbra.recovery.snapshot.SnapshotService;
import dev.umbra.recovery.snapshot.SnapshotTrigger;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.jboss.logging.Logger;

/**
 * Runs restores, one work item of {@value #QUEUE} per job (the queue's lease and fencing token keep
 * two replicas from running one job at once; every write below first checks that this worker still
 * holds the lease). A try:
 * <ol>
 * <li>once per job: reads the guild from Discord (renewing the lease after each call: a large guild's
 * read may take longer than a lease), stores it as the PRE_RESTORE snapshot, plans the steps against it
 * and stores them (one transaction), the job RUNNING;</li>
 * <li>applies the steps not done yet, in order, each recorded DONE in its own transaction as soon as
 * Discord confirms it, so that a crash, a lost lease or an outage resumes after the last finished step.
 * A create is first recorded ATTEMPTED: if its answer never came, the next try looks for the object it
 * may have created (same name, not a pre-restore object, not adopted already) before sending it again;</li>
 * <li>the job COMPLETED with its counts → RestoreCompleted.</li>
 * </ol>
 * A try that fails (Discord down or its circuit open, the database away) is retried by the queue;
 * after {@code recovery.restore.max-attempts} tries, or at once when Discord refuses a step or the
 * snapshot is gone, the job FAILED → RestoreFailed.
 */
@ApplicationScoped
public class RestoreWorker implements WorkHandler {

    public static final String QUEUE = "restore-job";

    private static final Logger LOG = Logger.getLogger(RestoreWorker.class);
    private static final String FAILED_TRY = "update restore_job set failed_tries = failed_tries + 1 where id = $1 returning failed_tries";

    /** This worker's lease on the item was taken over: stop, the other worker carries on. */
    private static final class LeaseLost extends RuntimeException {
        LeaseLost() {
            super("the restore's lease was taken over", null, false, false);
        }
    }

    /** The restore cannot be done whatever the tries (its snapshot is gone). */
    static final class Impossible extends RuntimeException {
        Impossible(String message) {
            super(message, null, false, false);
        }
    }

    private final DiscordGuilds discord;
    private final SnapshotService snapshots;
    private final OutboxWriter outbox;
    private final WorkQueues queues;
    private final RestoreSettings settings;
    private final DiscordSettings discordSettings;
    private final Clock clock;

    public RestoreWorker(DiscordGuilds discord, SnapshotService snapshots, OutboxWriter outbox, WorkQueues queues, RestoreSettings settings,
            DiscordSettings discordSettings, Clock clock) {
        this.discord = discord;
        this.snapshots = snapshots;
        this.outbox = outbox;
        this.queues = queues;
        this.settings = settings;
        this.discordSettings = discordSettings;
        this.clock = clock;
    }

    @Override
    public String queue() {
        return QUEUE;
    }

    @Override
    public Uni<Outcome> handle(WorkItem item) {
        UUID jobId = jobIdOf(item);
        if (jobId == null) {
            return Uni.createFrom().item(Outcome.poison("no restore job id in the item"));
        }
        return Panache.withSession(() -> RestoreJob.<RestoreJob>findById(jobId))
                .chain(job -> {
                    if (job == null) {
                        return Uni.createFrom().item(Outcome.poison("no restore job " + jobId));
                    }
                    if (job.status.finished()) {
                        return Uni.createFrom().item(Outcome.done());
                    }
                    Uni<Void> planned = job.status == RestoreStatus.QUEUED ? plan(item, job) : Uni.createFrom().voidItem();
                    return planned
                            .chain(() -> Panache.withSession(() -> RestoreJob.<RestoreJob>findById(jobId)
                                    .chain(fresh -> RestoreSteps.of(jobId).map(steps -> new Planned(fresh, steps)))))
                            .chain(planned2 -> apply(item, planned2))
                            .chain(() -> complete(item, jobId))
                            .replaceWith(Outcome.done());
                })
                .onFailure(LeaseLost.class).recoverWithItem(lost -> Outcome.deferred(lost.getMessage(), null))
                .onFailure().recoverWithUni(error -> afterFailedTry(item, jobId, error));
    }

    /** A job whose tries kill or hang the worker ends FAILED (RestoreFailed), rather than stay QUEUED and refuse every later restore of its guild. */
    @Override
    public Uni<Outcome> abandoned(WorkItem item, String reason) {
        UUID jobId = jobIdOf(item);
        if (jobId == null) {
            return Uni.createFrom().item(Outcome.poison("no restore job id in the item"));
        }
        return Panache.withSession(() -> RestoreJob.<RestoreJob>findById(jobId))
                .chain(job -> job == null || job.status.finished() ? Uni.createFrom().item(Outcome.done())
                        : fail(item, jobId, reason, reason).replaceWith(Outcome.poison(reason)))
                .onFailure(LeaseLost.class).recoverWithItem(lost -> Outcome.deferred(lost.getMessage(), null));
    }

    private static UUID jobIdOf(WorkItem item) {
        try {
            return UUID.fromString(item.payload().path("restore_job_id").asText());
        } catch (IllegalArgumentException unreadable) {
            return null;
        }
    }

    private record Planned(RestoreJob job, List<RestoreSteps.Stored> steps) {
    }

    private Uni<Void> plan(WorkItem item, RestoreJob job) {
        return discord.read(job.guildId, renewing(item)).chain(current -> afterProgress(item, () -> RestoreJob.<RestoreJob>findById(job.id).chain(fresh -> {
            if (fresh.status != RestoreStatus.QUEUED) {
                return Uni.createFrom().voidItem();
            }
            return Snapshot.<Snapshot>findById(fresh.snapshotId).chain(target -> {
                if (target == null) {
                    throw new Impossible("snapshot " + fresh.snapshotId + " is gone");
                }
                return AntiNukeSuspects.since(fresh.guildId, target.createdAt).chain(withheld -> {
                    if (!withheld.isEmpty()) {
                        LOG.infof("restore %s of guild %s: the roles of %d member(s) caught in an anti-nuke burst since snapshot %s are not given back",
                                fresh.id, fresh.guildId, withheld.size(), target.id);
                    }
                    List<RestorePlanner.Step> steps = RestorePlanner.plan(fresh.guildId, target.decoded(), current, withheld);
                    return snapshots.store(fresh.guildId, SnapshotTrigger.PRE_RESTORE, SnapshotCodec.encode(current))
                            .chain(pre -> RestoreSteps.insert(fresh.id, steps).invoke(() -> {
                                fresh.preRestoreSnapshotId = pre.id;
                                fresh.totalSteps = steps.size();
                                fresh.status = RestoreStatus.RUNNING;
                                fresh.failedTries = 0;
                            }));
                });
            });
        })));
    }

    private Uni<Void> apply(WorkItem item, Planned planned) {
        RestoreJob job = planned.job();
        Recreated created = new Recreated();
        planned.steps().stream().filter(step -> step.done() && step.discordId() != null).forEach(step -> created.made(step.targetId(), step.discordId()));
        planned.steps().stream().filter(step -> step.kind().creates() && step.finished() && !step.done())
                .forEach(step -> created.refused(step.targetId()));
        Uni<Void> applied = Uni.createFrom().voidItem();
        for (RestoreSteps.Stored step : planned.steps()) {
            if (!step.finished()) {
                applied = applied.chain(() -> applyOne(item, job, step, created));
            }
        }
        return applied;
    }

    /**
     * A step Discord refuses (403: a managed role, one above the bot's own; 400: a channel a Community guild needs; 404:
     * gone meanwhile) is skipped and the restore goes on: the rest of the guild is worth restoring, and failing here
     * would leave it half done. A refused token (401) refuses every step alike: the restore fails.
     */
    private Uni<Void> applyOne(WorkItem item, RestoreJob job, RestoreSteps.Stored step, Recreated created) {
        return applyStep(item, job, step, created)
                .onFailure(refused -> refused instanceof DiscordRejection rejection && rejection.status() != 401).recoverWithUni(refused -> {
                    int status = ((DiscordRejection) refused).status();
                    if (step.kind().creates()) {
                        created.refused(step.targetId());
                    }
                    LOG.infof("restore %s of guild %s: step %d (%s %s) skipped: %s", job.id, job.guildId, step.seq(), step.kind(), step.targetId(),
                            refused.getMessage());
                    return afterProgress(item, () -> RestoreSteps.skipped(job.id, step, "Discord refused it (" + status + ")", clock.instant()));
                });
    }

    private Uni<Void> applyStep(WorkItem item, RestoreJob job, RestoreSteps.Stored step, Recreated created) {
        if (step.kind().creates()) {
            Uni<String> alreadyThere = step.attempted() ? createdBefore(item, job, step, created) : Uni.createFrom().nullItem();
            return alreadyThere
                    .chain(found -> found != null ? Uni.createFrom().item(found)
                            : inLease(item, () -> RestoreSteps.attempted(job.id, step)).chain(() -> create(job, step, created)))
                    .chain(discordId -> {
                        created.made(step.targetId(), discordId);
                        return afterProgress(item, () -> RestoreSteps.done(job.id, step, discordId, clock.instant()));
                    });
        }
        return change(job, step, created).chain(() -> afterProgress(item, () -> RestoreSteps.done(job.id, step, null, clock.instant())));
    }

    private Uni<String> create(RestoreJob job, RestoreSteps.Stored step, Recreated created) {
        return step.kind() == StepKind.CREATE_ROLE ? discord.createRole(job.guildId, step.role())
                : discord.createChannel(job.guildId, resolve(step.channel(), created));
    }

    private Uni<Void> change(RestoreJob job, RestoreSteps.Stored step, Recreated created) {
        return switch (step.kind()) {
            case UPDATE_ROLE -> discord.updateRole(job.guildId, step.targetId(), step.role());
            case ORDER_ROLES -> discord.setRolePositions(job.guildId, step.positions().roles().stream().filter(role -> created.exists(role.id()))
                    .collect(LinkedHashMap<String, Integer>::new, (positions, role) -> positions.put(created.id(role.id()), role.position()),
                            Map::putAll));
            case UPDATE_CHANNEL -> discord.updateChannel(step.targetId(), resolve(step.channel(), created));
            case SET_MEMBER_ROLES -> discord.setMemberRoles(job.guildId, step.targetId(),
                    step.member().roles().stream().filter(created::exists).map(created::id).toList()).replaceWithVoid();
            case DELETE_CHANNEL -> discord.deleteChannel(step.targetId());
            case DELETE_ROLE -> discord.deleteRole(job.guildId, step.targetId());
            default -> throw new IllegalStateException("not a change: " + step.kind());
        };
    }

    /**
     * The object an earlier try may have created for this step before its answer was lost: one with
     * the step's name (and type, for a channel) that was not in the guild before the restore and is
     * not the result of another step. Null when there is none: the create is sent.
     */
    private Uni<String> createdBefore(WorkItem item, RestoreJob job, RestoreSteps.Stored step, Recreated created) {
        return Panache.withSession(() -> Snapshot.<Snapshot>findById(job.preRestoreSnapshotId))
                .chain(pre -> discord.read(job.guildId, renewing(item)).map(now -> {
                    GuildStructure before = pre.decoded();
                    Set<String> taken = created.madeIds();
                    Stream.concat(before.roles().stream().map(GuildStructure.Role::id), before.channels().stream().map(GuildStructure.Channel::id))
                            .forEach(taken::add);
                    if (step.kind() == StepKind.CREATE_ROLE) {
                        String name = step.role().name();
                        return now.roles().stream().filter(role -> role.name().equals(name) && !taken.contains(role.id()))
                                .map(GuildStructure.Role::id).findFirst().orElse(null);
                    }
                    GuildStructure.Channel wanted = step.channel();
                    return now.channels().stream()
                            .filter(channel -> channel.name().equals(wanted.name()) && channel.type() == wanted.type() && !taken.contains(channel.id()))
                            .map(GuildStructure.Channel::id).findFirst().orElse(null);
                }));
    }

    /**
     * The channel as the snapshot has it, with the ids of what the restore made in place of the snapshot's. What Discord refused to
     * make is left out: an overwrite for a role that does not exist (it could neither grant nor deny anyone anything), and a category
     * that does not exist (the channel goes to the top level, its own overwrites kept).
     */
    private static GuildStructure.Channel resolve(GuildStructure.Channel channel, Recreated created) {
        List<GuildStructure.Overwrite> overwrites = channel.permissionOverwrites().stream().filter(o -> created.exists(o.id()))
                .map(o -> new GuildStructure.Overwrite(created.id(o.id()), o.type(), o.allow(), o.deny())).toList();
        String parent = channel.parentId() == null || !created.exists(channel.parentId()) ? null : created.id(channel.parentId());
        return new GuildStructure.Channel(channel.id(), channel.name(), channel.type(), channel.position(), parent, channel.topic(), overwrites);
    }

    /**
     * What the restore's creates made of the snapshot's roles and channels: the id each one made has now, and the ones Discord
     * refused to make, which later steps leave out instead of naming an id that no longer exists (a refused create is skipped).
     */
    private static final class Recreated {
        private final Map<String, String> made = new HashMap<>();
        private final Set<String> refused = new HashSet<>();

        void made(String snapshotId, String discordId) {
            made.put(snapshotId, discordId);
        }

        void refused(String snapshotId) {
            refused.add(snapshotId);
        }

        /** Whether the role or channel of this snapshot id is on Discord (as it was, or made by the restore). */
        boolean exists(String snapshotId) {
            return !refused.contains(snapshotId);
        }

        /** Its id on Discord: the one the restore made, else the snapshot's own. */
        String id(String snapshotId) {
            return made.getOrDefault(snapshotId, snapshotId);
        }

        Set<String> madeIds() {
            return new HashSet<>(made.values());
        }
    }

    private Uni<Void> complete(WorkItem item, UUID jobId) {
        return inLease(item, () -> RestoreJob.<RestoreJob>findById(jobId).chain(job -> {
            job.status = RestoreStatus.COMPLETED;
            job.finishedAt = clock.instant();
            return outbox.publish(new RestoreCompleted(job.id, job.summary()));
        }).replaceWithVoid());
    }

    private Uni<Outcome> afterFailedTry(WorkItem item, UUID jobId, Throwable error) {
        if (error instanceof DiscordRejection rejection && rejection.status() == 401) {
            // the bot's token, refused for every guild alike (being rotated, say): an outage of ours, which waits, uncounted
            return Uni.createFrom().item(Outcome.unavailable(rejection.account(), null));
        }
        if (error instanceof DiscordRejection || error instanceof Impossible) {
            return giveUp(item, jobId, error, failureSummary(error, 0, true));
        }
        return Panache.withTransaction(() -> Panache.getSession().chain(session -> NativeSelects.select(session, FAILED_TRY, jobId)))
                .map(NativeSelects.single(Integer.class))
                // the database away: the try is not counted, and it is an outage of ours, which never gives a restore up
                .onFailure().recoverWithItem(0)
                .chain(tries -> tries != null && tries >= settings.maxAttempts()
                        ? giveUp(item, jobId, error, failureSummary(error, tries, false))
                        : Uni.createFrom().item(retried(error)));
    }

    private Uni<Outcome> giveUp(WorkItem item, UUID jobId, Throwable error, String summary) {
        return fail(item, jobId, summary, error.toString()).replaceWith(Outcome.done())
                .onFailure(LeaseLost.class).recoverWithItem(lost -> Outcome.deferred(lost.getMessage(), null));
    }

    private Outcome retried(Throwable error) {
        if (error instanceof DiscordFault fault) {
            return Outcome.unavailable(fault.getMessage(), fault.retryAfter() == null ? null : clock.instant().plus(fault.retryAfter()));
        }
        if (error instanceof CircuitBreakerOpenException) {
            return Outcome.unavailable("Discord's circuit is open", clock.instant().plus(discordSettings.client().circuit().delay()));
        }
        if (StorageFaults.isTransient(error)) {
            return Outcome.unavailable(error.toString(), null);
        }
        return Outcome.failed(error.toString());
    }

    /**
     * What the guild's owner is told (the job's error, RestoreFailed and the notification it becomes): our own account
     * of the failure, never an unexpected exception's text, which may quote the database's statements and values.
     */
    static String failureSummary(Throwable error, int tries, boolean hopeless) {
        String what;
        if (error instanceof DiscordRejection rejection) {
            what = rejection.account();
        } else if (error instanceof DiscordFault fault) {
            what = fault.account();
        } else if (error instanceof Impossible) {
            what = error.getMessage();
        } else if (error instanceof CircuitBreakerOpenException) {
            what = "Discord's circuit was open";
        } else if (StorageFaults.isTransient(error)) {
            what = "the database was unavailable";
        } else {
            what = "an unexpected error (the recovery service's log has it)";
        }
        return hopeless ? what : "gave up after " + tries + " tries: " + what;
    }

    private Uni<Void> fail(WorkItem item, UUID jobId, String summary, String lastError) {
        return inLease(item, () -> RestoreJob.<RestoreJob>findById(jobId).chain(job -> {
            if (job.status.finished()) {
                return Uni.createFrom().voidItem();
            }
            job.status = RestoreStatus.FAILED;
            job.finishedAt = clock.instant();
            job.error = summary;
            LOG.infof("restore %s of guild %s failed: %s (last error: %s)", job.id, job.guildId, summary, lastError);
            return outbox.publish(new RestoreFailed(job.id, summary)).replaceWithVoid();
        }));
    }

    /** Between the calls of a read of the guild, which may outlast a lease: renews the item's lease, or ends the try if it was taken over. */
    private Supplier<Uni<Void>> renewing(WorkItem item) {
        return () -> inLease(item, () -> Uni.createFrom().voidItem());
    }

    /** {@code work} in a transaction of its own, if this worker still holds the item's lease (the row stays locked until commit). */
    private <T> Uni<T> inLease(WorkItem item, Supplier<Uni<T>> work) {
        return leased(() -> queues.queue(QUEUE).holdsLease(item), work);
    }

    /** {@link #inLease}, for work that saves progress (the plan stored, a step done): workers that died earlier died behind it. */
    private <T> Uni<T> afterProgress(WorkItem item, Supplier<Uni<T>> work) {
        return leased(() -> queues.queue(QUEUE).progressed(item), work);
    }

    private static <T> Uni<T> leased(Supplier<Uni<Boolean>> holds, Supplier<Uni<T>> work) {
        return Panache.withTransaction(() -> holds.get().chain(held -> {
            if (!held) {
                throw new LeaseLost();
            }
            return work.get();
        }));
    }
}
