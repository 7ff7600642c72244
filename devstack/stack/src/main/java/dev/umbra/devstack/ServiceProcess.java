package dev.umbra.devstack;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A packaged Umbra service ({@code <service>/target/quarkus-app/quarkus-run.jar}) running against a devstack. */
public final class ServiceProcess implements AutoCloseable {

    private final String name;
    private final int port;
    private final ChildProcess process;

    private ServiceProcess(String name, int port, ChildProcess process) {
        this.name = name;
        this.port = port;
        this.process = process;
    }

    /**
     * Starts the service with its own database on {@code stack}, waits until it is ready, then streams
     * its outbox if it has a connector file.
     */
    public static ServiceProcess start(Devstack stack, Path repoRoot, String service, int port) {
        String database = service;
        Path jar = repoRoot.resolve(service + "-service/target/quarkus-app/quarkus-run.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: package the services first (./mvnw package -DskipTests)");
        }
        stack.postgres().createDatabase(database);
        Map<String, String> env = new HashMap<>();
        stack.serviceConfig(database).forEach((key, value) -> env.put(environmentName(key), value));
        env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
        ChildProcess process = ChildProcess.start(service + "-service",
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-jar", jar.toString()),
                stack.workDir(), stack.workDir().resolve(service + "-service.log"), env);
        ServiceProcess started = new ServiceProcess(service + "-service", port, process);
        Await.until(started.name, Duration.ofSeconds(60), process, started::ready);
        if (KafkaConnectWorker.hasConnectorFile(service)) {
            stack.streamOutbox(service, database);
        }
        return started;
    }

    public String name() {
        return name;
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    public long pid() {
        return process.pid();
    }

    private boolean ready() {
        try {
            HttpResponse<Void> response = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(url() + "/q/health/ready")).timeout(Duration.ofSeconds(2)).build(),
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
