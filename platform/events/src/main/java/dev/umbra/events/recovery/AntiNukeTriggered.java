package dev.umbra.events.recovery;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.List;
import java.util.Objects;

@EventContract(aggregate = Aggregates.ANTI_NUKE)
public record AntiNukeTriggered(
        String guildId,
        String detectedPattern,
        List<String> suspects) implements DomainEvent {

    public AntiNukeTriggered {
        Objects.requireNonNull(guildId, "guildId");
        Objects.requireNonNull(suspects, "suspects");
        suspects = List.copyOf(suspects);
    }

    @Override
    public String aggregateId() {
        return guildId;
    }
}
