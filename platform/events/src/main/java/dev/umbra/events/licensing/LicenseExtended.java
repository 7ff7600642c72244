package dev.umbra.events.licensing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.LICENSE)
public record LicenseExtended(
        UUID licenseId,
        Instant newExpiresAt) implements DomainEvent {

    public LicenseExtended {
        Objects.requireNonNull(licenseId, "licenseId");
        Objects.requireNonNull(newExpiresAt, "newExpiresAt");
    }

    @Override
    public String aggregateId() {
        return licenseId.toString();
    }
}
