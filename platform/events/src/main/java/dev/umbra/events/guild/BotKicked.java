package dev.umbra.events.guild;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;

@EventContract(aggregate = Aggregates.GUILD)
public record BotKicked(
        String guildId) implements DomainEvent {

    public BotKicked {
        Objects.requireNonNull(guildId, "guildId");
    }

    @Override
    public String aggregateId() {
        return guildId;
    }
}
