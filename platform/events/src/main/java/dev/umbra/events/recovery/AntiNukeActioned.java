package dev.umbra.events.recovery;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.List;
import java.util.Objects;

@EventContract(aggregate = Aggregates.ANTI_NUKE)
public record AntiNukeActioned(
        String guildId,
        List<String> actionsTaken) implements DomainEvent {

    public AntiNukeActioned {
        Objects.requireNonNull(guildId, "guildId");
        Objects.requireNonNull(actionsTaken, "actionsTaken");
        actionsTaken = List.copyOf(actionsTaken);
    }

    @Override
    public String aggregateId() {
        return guildId;
    }
}
