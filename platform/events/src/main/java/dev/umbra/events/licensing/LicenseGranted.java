package dev.umbra.events.licensing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.LICENSE)
public record LicenseGranted(
        UUID licenseId,
        String guildId,
        String planCode) implements DomainEvent {

    public LicenseGranted {
        Objects.requireNonNull(licenseId, "licenseId");
        Objects.requireNonNull(guildId, "guildId");
    }

    @Override
    public String aggregateId() {
        return licenseId.toString();
    }
}
