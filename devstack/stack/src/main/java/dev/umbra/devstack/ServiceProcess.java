package dev.umbra.devstack;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A packaged Umbra service ({@code <service>/target/quarkus-app/quarkus-run.jar}) running against a devstack. */
public final class ServiceProcess implements AutoCloseable {

    private final UmbraService service;
    private final int port;
    private final int managementPort;
    private final ChildProcess process;
    private final Path log;

    private ServiceProcess(UmbraService service, int port, int managementPort, ChildProcess process, Path log) {
        this.service = service;
        this.port = port;
        this.managementPort = managementPort;
        this.process = process;
        this.log = log;
    }

    /** Everything the service wrote to its console. */
    public Path log() {
        return log;
    }

    /**
     * Starts the service with its own database on {@code stack}, waits until its management interface
     * says it is ready, then streams its outbox if it publishes events. The order is safe: the
     * service's migration created the replication slot before the service could write, so the
     * connector, registered afterwards, still streams everything the service committed meanwhile.
     */
    public static ServiceProcess start(Devstack stack, Path repoRoot, UmbraService service, int port, int managementPort) {
        ServiceProcess started = launch(stack, repoRoot, service, port, managementPort);
        started.awaitReady(stack);
        return started;
    }

    /** Starts the process and returns at once; {@link #awaitReady} completes the start. Services launched together start in parallel. */
    static ServiceProcess launch(Devstack stack, Path repoRoot, UmbraService service, int port, int managementPort) {
        return launch(stack, repoRoot, service, port, managementPort, service.module() + ".log", Map.of());
    }

    /**
     * Another instance of a running service (a second replica on the same database and consumer groups,
     * as a deployment scales it), on its own ports and with its own log; waits until it is ready. Its
     * outbox is streamed already. {@code config}: settings of its own, as configuration properties.
     */
    static ServiceProcess replica(Devstack stack, Path repoRoot, UmbraService service, String replica, Map<String, String> config) {
        ServiceProcess started = launch(stack, repoRoot, service, Ports.free(), Ports.free(), service.module() + "-" + replica + ".log", config);
        try {
            Await.until(started.name() + "-" + replica, Duration.ofSeconds(180), started.process, started::ready);
        } catch (RuntimeException neverReady) {
            started.close();
            throw neverReady;
        }
        return started;
    }

    private static ServiceProcess launch(Devstack stack, Path repoRoot, UmbraService service, int port, int managementPort, String logName,
            Map<String, String> config) {
        Path jar = repoRoot.resolve(service.module() + "/target/quarkus-app/quarkus-run.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: package the services first (./mvnw package -DskipTests)");
        }
        stack.postgres().createDatabase(service.database());
        Map<String, String> env = new HashMap<>();
        stack.serviceConfig(service.database()).forEach((key, value) -> env.put(environmentName(key), value));
        env.put(environmentName("quarkus.http.port"), Integer.toString(port));
        env.put(environmentName("quarkus.management.port"), Integer.toString(managementPort));
        config.forEach((key, value) -> env.put(environmentName(key), value));
        // whole logger names, so that a reader of the log (the end-to-end tests' log check) knows whose line it is
        env.put(environmentName("quarkus.log.console.format"), "%d{HH:mm:ss.SSS} %-5p [%c] (%t) %s%e%n");
        // five services, Kafka, Connect and PostgreSQL share the machine's cores: a cold service loading its classes on an
        // event loop while the others start can pass Vert.x's 2 s blocked-thread warning without anything being wrong
        env.put(environmentName("quarkus.vertx.max-event-loop-execute-time"), "PT10S");
        Path log = stack.workDir().resolve(logName);
        // The JIT as the images set it (Dockerfile.jvm): C1 only. A service's code is framework plumbing around I/O, which C1
        // runs as fast as C2 does here, while C2 spent half of a fresh licensing's CPU compiling through a backlog's drain
        // (docs/benchmarks.md, "The services' JIT")
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-XX:TieredStopAtLevel=1"));
        // the end-to-end tests start the services with the test JVMs' options; the local run and the benchmarks do not
        command.addAll(Arrays.stream(System.getProperty("umbra.service.jvm-options", "").split(" ")).filter(o -> !o.isBlank()).toList());
        command.addAll(List.of("-jar", jar.toString()));
        ChildProcess process = ChildProcess.start(service.module(), command, stack.workDir(), log, env);
        return new ServiceProcess(service, port, managementPort, process, log);
    }

    /** Waits until the management interface says the service is ready, then streams its outbox if it publishes events. */
    void awaitReady(Devstack stack) {
        Await.until(name(), Duration.ofSeconds(180), process, this::ready);
        if (service.hasOutbox()) {
            stack.streamOutbox(service.name(), service.database());
        }
    }

    public String name() {
        return service.module();
    }

    public UmbraService service() {
        return service;
    }

    /** The public API. */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** Health ({@code /q/health}), metrics ({@code /q/metrics}) and the OpenAPI document: never on the public port. */
    public String managementUrl() {
        return "http://127.0.0.1:" + managementPort;
    }

    public long pid() {
        return process.pid();
    }

    /** kill -9, as a crash would: no shutdown, offsets not committed, transactions cut off. Returns once the process is gone. */
    void crash() {
        process.kill();
    }

    /** The same service started again on the same ports, appending to the same log; waits until it is ready. */
    ServiceProcess restarted(Devstack stack, Path repoRoot) {
        ServiceProcess again = launch(stack, repoRoot, service, port, managementPort);
        again.awaitReady(stack);
        return again;
    }

    private boolean ready() {
        try {
            HttpResponse<Void> response = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(managementUrl() + "/q/health/ready")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding());
            return response.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Quarkus reads {@code a.b-c} from the environment variable {@code A_B_C}. */
    static String environmentName(String property) {
        return property.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }

    @Override
    public void close() {
        process.stop(Duration.ofSeconds(20));
    }
}
