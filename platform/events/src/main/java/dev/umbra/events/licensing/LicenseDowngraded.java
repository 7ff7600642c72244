package dev.umbra.events.licensing;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventContract;
import java.util.Objects;
import java.util.UUID;

@EventContract(aggregate = Aggregates.LICENSE)
public record LicenseDowngraded(
        UUID licenseId,
        String oldPlan,
        String newPlan) implements DomainEvent {

    public LicenseDowngraded {
        Objects.requireNonNull(licenseId, "licenseId");
    }

    @Override
    public String aggregateId() {
        return licenseId.toString();
    }
}
