package dev.umbra.recovery.restore;

import java.time.Instant;
import java.util.UUID;

/** A restore and its progress. */
public record RestoreView(UUID id, String guildId, UUID snapshotId, UUID preRestoreSnapshotId, RestoreStatus status, Integer totalSteps,
        int doneSteps, int created, int updated, int deleted, int skipped, String error, Instant requestedAt, Instant finishedAt) {

    static RestoreView of(RestoreJob job) {
        return new RestoreView(job.id, job.guildId, job.snapshotId, job.preRestoreSnapshotId, job.status, job.totalSteps, job.doneSteps,
                job.createdCount, job.updatedCount, job.deletedCount, job.skippedCount, job.error, job.requestedAt, job.finishedAt);
    }
}
