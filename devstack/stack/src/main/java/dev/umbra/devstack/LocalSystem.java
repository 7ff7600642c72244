package dev.umbra.devstack;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Devstack plus the packaged services, each on its usual port: the whole system on one machine. */
public final class LocalSystem implements AutoCloseable {

    public static final Map<String, Integer> SERVICES = servicePorts();

    private final Devstack stack;
    private final List<ServiceProcess> services;

    private LocalSystem(Devstack stack, List<ServiceProcess> services) {
        this.stack = stack;
        this.services = services;
    }

    /** Starts the named services (all five when none is named) on free ports against {@code stack}. */
    public static LocalSystem start(Devstack stack, Path repoRoot, boolean usualPorts, List<String> names) {
        List<ServiceProcess> started = new ArrayList<>();
        try {
            for (String name : names.isEmpty() ? List.copyOf(SERVICES.keySet()) : names) {
                Integer usual = SERVICES.get(name);
                if (usual == null) {
                    throw new IllegalArgumentException("no service " + name + "; services are " + SERVICES.keySet());
                }
                started.add(ServiceProcess.start(stack, repoRoot, name, usualPorts ? usual : Ports.free()));
            }
            started.stream().filter(s -> s.name().equals("billing-service")).findFirst()
                    .ifPresent(billing -> stack.paymentGateway().callbackUrl(billing.url() + "/webhooks/payment-gateway"));
            return new LocalSystem(stack, started);
        } catch (RuntimeException e) {
            started.forEach(ServiceProcess::close);
            throw e;
        }
    }

    public Devstack stack() {
        return stack;
    }

    public List<ServiceProcess> services() {
        return services;
    }

    public String url(String service) {
        return services.stream().filter(s -> s.name().equals(service + "-service")).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(service + " is not running"))
                .url();
    }

    private static Map<String, Integer> servicePorts() {
        Map<String, Integer> ports = new LinkedHashMap<>();
        ports.put("guild", 8081);
        ports.put("licensing", 8082);
        ports.put("billing", 8083);
        ports.put("recovery", 8084);
        ports.put("audit", 8085);
        return ports;
    }

    /** Stops the services together: each gets its grace period, not the sum of all of them. */
    @Override
    public void close() {
        services.parallelStream().forEach(ServiceProcess::close);
    }
}
