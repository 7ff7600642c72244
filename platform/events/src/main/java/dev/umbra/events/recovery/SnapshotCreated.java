package dev.umbra.events.recovery;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.SNAPSHOT)
public record SnapshotCreated(
        UUID snapshotId,
        String guildId,
        String trigger) implements DomainEvent {

    public SnapshotCreated {
        Objects.requireNonNull(snapshotId, "snapshotId");
        Objects.requireNonNull(guildId, "guildId");
    }

    @Override
    public String aggregateId() {
        return snapshotId.toString();
    }
}
