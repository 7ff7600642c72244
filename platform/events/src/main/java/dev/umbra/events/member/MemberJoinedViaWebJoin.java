package dev.umbra.events.member;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.MEMBER)
public record MemberJoinedViaWebJoin(
        UUID memberId,
        String guildId,
        String slug) implements DomainEvent {

    public MemberJoinedViaWebJoin {
        Objects.requireNonNull(memberId, "memberId");
        Objects.requireNonNull(guildId, "guildId");
    }

    @Override
    public String aggregateId() {
        return memberId.toString();
    }
}
