package dev.umbra.audit.replay;

import java.time.Instant;
import java.util.UUID;

/** A replay as the API shows it. */
public record ReplayView(UUID id, String aggregateType, String aggregateId, Instant from, Instant to, ReplayStatus status, int total,
        int published, int refusedMasked, int refusedOld, Instant requestedAt, Instant finishedAt, String note) {

    static ReplayView of(Replay replay) {
        return new ReplayView(replay.id, replay.aggregateType, replay.aggregateId, replay.occurredFrom, replay.occurredTo, replay.status,
                replay.total, replay.published, replay.refusedMasked, replay.refusedOld, replay.requestedAt, replay.finishedAt, replay.note);
    }
}
