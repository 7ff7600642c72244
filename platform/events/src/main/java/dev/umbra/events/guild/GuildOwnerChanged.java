package dev.umbra.events.guild;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;

@EventContract(aggregate = Aggregates.GUILD)
public record GuildOwnerChanged(
        String guildId,
        String oldOwnerId,
        String newOwnerId) implements DomainEvent {

    public GuildOwnerChanged {
        Objects.requireNonNull(guildId, "guildId");
    }

    @Override
    public String aggregateId() {
        return guildId;
    }
}
