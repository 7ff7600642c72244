package dev.umbra.devstack;

import java.util.List;

/**
 * One Umbra service as every environment knows it: its public HTTP port, its management port
 * (health and metrics, never on the public port), its database and the aggregate types whose events
 * it publishes through its outbox. A service that publishes nothing has no outbox connector.
 */
public record UmbraService(String name, int httpPort, int managementPort, String database, List<String> publishes) {

    public UmbraService {
        publishes = List.copyOf(publishes);
    }

    /** The Maven module and process name, {@code <name>-service}. */
    public String module() {
        return name + "-service";
    }

    public boolean hasOutbox() {
        return !publishes.isEmpty();
    }
}
