package dev.umbra.devstack;

import dev.umbra.events.Aggregates;
import java.util.List;

/**
 * The services of Umbra, written down once. The connector files of {@code deploy/connectors}, the
 * local system (and so {@code run-local}) and the ports in each service's application.properties
 * follow from this list; tests keep the committed files equal to it.
 */
public final class ServiceRegistry {

    public static final List<UmbraService> SERVICES = List.of(
            new UmbraService("guild", 8081, 9081, "guild", List.of(Aggregates.GUILD, Aggregates.MEMBER, Aggregates.USER)),
            new UmbraService("licensing", 8082, 9082, "licensing", List.of(Aggregates.LICENSE)),
            new UmbraService("billing", 8083, 9083, "billing", List.of(Aggregates.BILLING_KEY, Aggregates.SUBSCRIPTION, Aggregates.INVOICE)),
            new UmbraService("recovery", 8084, 9084, "recovery", List.of(Aggregates.SNAPSHOT, Aggregates.RESTORE_JOB, Aggregates.ANTI_NUKE)),
            new UmbraService("audit", 8085, 9085, "audit", List.of()));

    private ServiceRegistry() {
    }

    public static UmbraService named(String name) {
        return SERVICES.stream().filter(s -> s.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no service " + name + "; services are "
                        + SERVICES.stream().map(UmbraService::name).toList()));
    }
}
