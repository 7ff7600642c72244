package dev.umbra.events.recovery;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.RESTORE_JOB)
public record RestoreStarted(
        UUID restoreJobId,
        UUID snapshotId,
        String guildId) implements DomainEvent {

    public RestoreStarted {
        Objects.requireNonNull(restoreJobId, "restoreJobId");
        Objects.requireNonNull(snapshotId, "snapshotId");
        Objects.requireNonNull(guildId, "guildId");
    }

    @Override
    public String aggregateId() {
        return restoreJobId.toString();
    }
}
