package dev.umbra.events.member;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.MEMBER)
public record MemberRestored(
        UUID memberId,
        String guildId,
        List<String> restoredRoles) implements DomainEvent {

    public MemberRestored {
        Objects.requireNonNull(memberId, "memberId");
        Objects.requireNonNull(guildId, "guildId");
        Objects.requireNonNull(restoredRoles, "restoredRoles");
        restoredRoles = List.copyOf(restoredRoles);
    }

    @Override
    public String aggregateId() {
        return memberId.toString();
    }
}
