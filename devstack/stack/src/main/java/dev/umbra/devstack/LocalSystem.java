package dev.umbra.devstack;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/** Devstack plus the packaged services of {@link ServiceRegistry}: the whole system on one machine. */
public final class LocalSystem implements AutoCloseable {

    private final Devstack stack;
    private final Path repoRoot;
    private final List<ServiceProcess> services;
    private final List<ServiceProcess> replicas = new CopyOnWriteArrayList<>();

    private LocalSystem(Devstack stack, Path repoRoot, List<ServiceProcess> services) {
        this.stack = stack;
        this.repoRoot = repoRoot;
        this.services = new CopyOnWriteArrayList<>(services);
    }

    /**
     * Starts the named services (every registered one when none is named) against {@code stack}: on
     * their registered HTTP and management ports when {@code usualPorts}, else on free ones.
     */
    public static LocalSystem start(Devstack stack, Path repoRoot, boolean usualPorts, List<String> names) {
        List<UmbraService> chosen = names.isEmpty() ? ServiceRegistry.SERVICES : names.stream().map(ServiceRegistry::named).toList();
        List<ServiceProcess> started = new ArrayList<>();
        try {
            for (UmbraService service : chosen) {
                started.add(usualPorts
                        ? ServiceProcess.launch(stack, repoRoot, service, service.httpPort(), service.managementPort())
                        : ServiceProcess.launch(stack, repoRoot, service, Ports.free(), Ports.free()));
            }
            eachAtOnce(started, service -> service.awaitReady(stack));
            started.stream().filter(s -> s.name().equals("billing-service")).findFirst()
                    .ifPresent(billing -> stack.paymentGateway().callbackUrl(billing.url() + "/webhooks/payment-gateway"));
            return new LocalSystem(stack, repoRoot, started);
        } catch (RuntimeException e) {
            started.forEach(ServiceProcess::close);
            throw e;
        }
    }

    public Devstack stack() {
        return stack;
    }

    public List<ServiceProcess> services() {
        return List.copyOf(services);
    }

    /** kill -9 of a running service by its registry name, as a crash would; returns once it is gone. */
    public void crash(String service) {
        process(service).crash();
    }

    /** Stops running services as an orchestrator would (SIGTERM and a grace period, all at once): they leave their consumer groups. */
    public void stop(String... names) {
        eachAtOnce(processes(names), ServiceProcess::close);
    }

    /** Starts crashed or stopped services again on their ports, all at once, and waits until each is ready. */
    public void restart(String... names) {
        eachAtOnce(processes(names), old -> services.set(services.indexOf(old), old.restarted(stack, repoRoot)));
    }

    /**
     * Starts another replica of a running service, by its registry name ({@code replica} names its log),
     * with {@code config} (configuration properties) of its own; it runs until {@link #close()}, or until
     * the caller closes it.
     */
    public ServiceProcess startReplica(String service, String replica, Map<String, String> config) {
        ServiceProcess started = ServiceProcess.replica(stack, repoRoot, ServiceRegistry.named(service), replica, config);
        replicas.add(started);
        return started;
    }

    /** The public API of a running service, by its registry name ({@code guild}, {@code licensing}, …). */
    public String url(String service) {
        return process(service).url();
    }

    /** The management interface (health, metrics, OpenAPI) of a running service. */
    public String managementUrl(String service) {
        return process(service).managementUrl();
    }

    private List<ServiceProcess> processes(String... names) {
        return Arrays.stream(names).map(this::process).toList();
    }

    private ServiceProcess process(String service) {
        return services.stream().filter(s -> s.service().name().equals(service)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(service + " is not running"));
    }

    /** Stops the services together: each gets its grace period, not the sum of all of them. */
    @Override
    public void close() {
        List<ServiceProcess> all = new ArrayList<>(services);
        all.addAll(replicas);
        eachAtOnce(all, ServiceProcess::close);
    }

    /** One thread per service: the common pool would run only as many at once as there are cores, and these mostly wait. */
    private static void eachAtOnce(List<ServiceProcess> services, Consumer<ServiceProcess> action) {
        if (services.isEmpty()) {
            return;
        }
        ExecutorService threads = Executors.newFixedThreadPool(services.size());
        try {
            List<Future<?>> running = services.stream().<Future<?>>map(service -> threads.submit(() -> action.accept(service))).toList();
            for (Future<?> each : running) {
                each.get();
            }
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            threads.shutdownNow();
        }
    }
}
