package dev.umbra.recovery.restore;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.umbra.events.recovery.RestoreStarted;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.web.ProblemException;
import dev.umbra.platform.workqueue.WorkQueues;
import dev.umbra.platform.readmodel.GuildPlans;
import dev.umbra.recovery.snapshot.GuildLocks;
import dev.umbra.recovery.snapshot.SnapshotService;
import io.quarkus.hibernate.reactive.panache.common.WithSession;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Accepts restores: one active per guild (409 otherwise; of requests at the same moment the one that
 * gets the guild's restore lock goes on and the others are 409 at once, without waiting for it; a
 * partial unique index is the last word), at most the plan's restores in any 24 hours
 * (429), of a snapshot of the guild (404), held from retention ({@link SnapshotService#findHeld}): the
 * retention of a snapshot taken at the same moment either deleted it first (404) or keeps it for the
 * job. The job is queued on {@value RestoreWorker#QUEUE} in the same transaction as RestoreStarted.
 */
@ApplicationScoped
public class RestoreService {

    private static final Duration DAY = Duration.ofDays(1);

    private final SnapshotService snapshots;
    private final GuildPlans plans;
    private final OutboxWriter outbox;
    private final WorkQueues queues;
    private final Clock clock;

    public RestoreService(SnapshotService snapshots, GuildPlans plans, OutboxWriter outbox, WorkQueues queues, Clock clock) {
        this.snapshots = snapshots;
        this.plans = plans;
        this.outbox = outbox;
        this.queues = queues;
        this.clock = clock;
    }

    @WithTransaction
    public Uni<RestoreJob> request(String guildId, UUID snapshotId) {
        Instant now = clock.instant();
        return GuildLocks.tryLock("restore", guildId)
                .invoke(locked -> {
                    if (!locked) {
                        throw ProblemException.conflict("another restore request of guild " + guildId + " is being handled");
                    }
                })
                .chain(() -> snapshots.refuseIfDeleted(guildId, "no restores"))
                .chain(() -> snapshots.findHeld(guildId, snapshotId))
                .chain(() -> RestoreJob.count("guildId = ?1 and status in ?2", guildId, List.of(RestoreStatus.QUEUED, RestoreStatus.RUNNING)))
                .chain(active -> {
                    if (active > 0) {
                        throw ProblemException.conflict("guild " + guildId + " has a restore under way; one at a time");
                    }
                    return plans.entitlementsOf(guildId);
                })
                // a restore that failed is not the restore the guild asked for: asking again does not use up the day's allowance
                .chain(entitlements -> RestoreJob.count("guildId = ?1 and requestedAt > ?2 and status <> ?3", guildId, now.minus(DAY),
                        RestoreStatus.FAILED).map(recent -> {
                    if (recent >= entitlements.restoresPerDay()) {
                        throw new ProblemException(429, "Too Many Requests",
                                "the guild's plan allows " + entitlements.restoresPerDay() + " restores in 24 hours");
                    }
                    return RestoreJob.requested(guildId, snapshotId, now);
                }))
                .chain(job -> job.<RestoreJob>persist())
                .call(job -> outbox.publish(new RestoreStarted(job.id, snapshotId, guildId)))
                .call(job -> queues.queue(RestoreWorker.QUEUE)
                        .enqueue(job.id.toString(), JsonNodeFactory.instance.objectNode().put("restore_job_id", job.id.toString()), now));
    }

    @WithSession
    public Uni<RestoreJob> get(String guildId, UUID id) {
        return RestoreJob.<RestoreJob>findById(id).map(job -> {
            if (job == null || !job.guildId.equals(guildId)) {
                throw ProblemException.notFound("no restore " + id + " of guild " + guildId);
            }
            return job;
        });
    }
}
