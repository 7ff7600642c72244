package dev.umbra.events.licensing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.LICENSE)
public record LicenseCanceled(
        UUID licenseId) implements DomainEvent {

    public LicenseCanceled {
        Objects.requireNonNull(licenseId, "licenseId");
    }

    @Override
    public String aggregateId() {
        return licenseId.toString();
    }
}
