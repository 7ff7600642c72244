package dev.umbra.recovery.restore;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;

/** A restore of a guild to a snapshot; its steps are rows of {@code restore_step}. */
@Entity
@Table(name = "restore_job")
public class RestoreJob extends PanacheEntityBase {

    @Id
    public UUID id;

    @Column(name = "guild_id", nullable = false)
    public String guildId;

    @Column(name = "snapshot_id", nullable = false)
    public UUID snapshotId;

    @Column(name = "pre_restore_snapshot_id")
    public UUID preRestoreSnapshotId;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public RestoreStatus status;

    @Column(name = "total_steps")
    public Integer totalSteps;

    @Column(name = "done_steps", nullable = false)
    public int doneSteps;

    @Column(name = "created_count", nullable = false)
    public int createdCount;

    @Column(name = "updated_count", nullable = false)
    public int updatedCount;

    @Column(name = "deleted_count", nullable = false)
    public int deletedCount;

    /** Steps Discord refused, left as they are. */
    @Column(name = "skipped_count", nullable = false)
    public int skippedCount;

    /** Tries that failed since the last progress (the plan stored, a step finished): {@link RestoreSettings#maxAttempts()} of them give it up. */
    @Column(name = "failed_tries", nullable = false)
    public int failedTries;

    public String error;

    @Column(name = "requested_at", nullable = false)
    public Instant requestedAt;

    @Column(name = "finished_at")
    public Instant finishedAt;

    static RestoreJob requested(String guildId, UUID snapshotId, Instant now) {
        RestoreJob job = new RestoreJob();
        job.id = UUID.randomUUID();
        job.guildId = guildId;
        job.snapshotId = snapshotId;
        job.status = RestoreStatus.QUEUED;
        job.requestedAt = now;
        return job;
    }

    String summary() {
        return "created " + createdCount + ", updated " + updatedCount + ", deleted " + deletedCount
                + (skippedCount == 0 ? "" : ", skipped " + skippedCount + " that Discord refused (a managed role, one above the bot's)");
    }
}
