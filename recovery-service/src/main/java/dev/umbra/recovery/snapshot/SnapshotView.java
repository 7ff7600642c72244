package dev.umbra.recovery.snapshot;

import java.time.Instant;
import java.util.UUID;

/** A snapshot as the API shows it; the structure only when one snapshot is asked for. */
public record SnapshotView(UUID id, String guildId, SnapshotTrigger trigger, String checksum, int sizeBytes, Instant createdAt,
        GuildStructure structure) {

    static SnapshotView summary(Snapshot snapshot) {
        return new SnapshotView(snapshot.id, snapshot.guildId, snapshot.trigger, snapshot.checksum, snapshot.sizeBytes, snapshot.createdAt, null);
    }

    static SnapshotView whole(Snapshot snapshot) {
        return new SnapshotView(snapshot.id, snapshot.guildId, snapshot.trigger, snapshot.checksum, snapshot.sizeBytes, snapshot.createdAt,
                snapshot.decoded());
    }
}
