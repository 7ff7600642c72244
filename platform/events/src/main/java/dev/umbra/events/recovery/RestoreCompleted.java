package dev.umbra.events.recovery;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.RESTORE_JOB)
public record RestoreCompleted(
        UUID restoreJobId,
        String resultSummary) implements DomainEvent {

    public RestoreCompleted {
        Objects.requireNonNull(restoreJobId, "restoreJobId");
    }

    @Override
    public String aggregateId() {
        return restoreJobId.toString();
    }
}
