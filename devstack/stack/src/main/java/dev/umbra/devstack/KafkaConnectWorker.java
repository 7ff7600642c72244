package dev.umbra.devstack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A Kafka Connect worker in distributed mode with the Debezium PostgreSQL connector on its classpath. */
public final class KafkaConnectWorker implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final int port;
    private final Path workDir;
    private final Path config;
    /** Overrides the local poll interval of the outbox connectors registered from then on (the benchmarks compare). */
    public static final String POLL_INTERVAL_PROPERTY = "umbra.devstack.connector-poll-interval-ms";
    static final String LOCAL_POLL_INTERVAL_MS = "100";

    private final List<String> jvmOptions;
    private final Set<String> connectors = ConcurrentHashMap.newKeySet();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private volatile ChildProcess process;

    private KafkaConnectWorker(int port, Path workDir, Path config, List<String> jvmOptions) {
        this.port = port;
        this.workDir = workDir;
        this.config = config;
        this.jvmOptions = jvmOptions;
    }

    static KafkaConnectWorker start(Path workDir, String bootstrapServers, List<String> jvmOptions) {
        int port = Ports.free();
        Path config = Configs.write(workDir.resolve("connect-worker.properties"), Map.ofEntries(
                Map.entry("bootstrap.servers", bootstrapServers),
                Map.entry("group.id", "umbra-connect"),
                Map.entry("listeners", "http://127.0.0.1:" + port),
                Map.entry("config.storage.topic", "umbra-connect-configs"),
                Map.entry("offset.storage.topic", "umbra-connect-offsets"),
                Map.entry("status.storage.topic", "umbra-connect-status"),
                Map.entry("config.storage.replication.factor", "1"),
                Map.entry("offset.storage.replication.factor", "1"),
                Map.entry("status.storage.replication.factor", "1"),
                Map.entry("offset.flush.interval.ms", "1000"),
                Map.entry("key.converter", "org.apache.kafka.connect.storage.StringConverter"),
                Map.entry("value.converter", "org.apache.kafka.connect.storage.StringConverter"),
                Map.entry("plugin.discovery", "service_load"),
                Map.entry("config.providers", "env"),
                Map.entry("config.providers.env.class", "org.apache.kafka.common.config.provider.EnvVarConfigProvider")));
        KafkaConnectWorker worker = new KafkaConnectWorker(port, workDir, config, jvmOptions);
        worker.launch();
        return worker;
    }

    private void launch() {
        process = ChildProcess.start("kafka-connect", ChildProcess.javaCommand(
                Logging.jvmOptions(workDir, jvmOptions), ChildClasspath.read("kafka-connect"),
                "org.apache.kafka.connect.cli.ConnectDistributed", config.toString()),
                workDir, workDir.resolve("kafka-connect.log"), Map.of());
        Await.until("kafka connect on port " + port, Duration.ofSeconds(90), process, this::servesConnectors);
    }

    /**
     * kill -9 of the worker, as the loss of its machine would be: what its connectors read after their last
     * flushed source offsets ({@code offset.flush.interval.ms}) is read, and sent to Kafka, again after {@link #restart}.
     */
    public void crash() {
        process.kill();
    }

    /** Starts a crashed worker again on its port: it finds its connectors in Kafka; returns once each of them runs. */
    public void restart() {
        launch();
        connectors.forEach(name -> Await.until("connector " + name, Duration.ofSeconds(90), process, () -> running(name)));
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /**
     * Registers (or updates) the outbox connector of {@code service} ({@link OutboxConnectors}),
     * pointed at {@code database} of this stack, and waits until its task runs.
     */
    public String register(UmbraService service, PostgresServer postgres, String database) {
        String name = OutboxConnectors.connectorName(database);
        Map<String, String> config = new LinkedHashMap<>(OutboxConnectors.config(service, database, postgres.host(), postgres.port(),
                postgres.user(), postgres.password()));
        // Locally a heartbeat a second: an idle database's slot visibly moves within a test's patience.
        config.put("heartbeat.interval.ms", "1000");
        // Locally 100 ms, not production's 10: on a machine that runs everything, the four connectors looking at their
        // slots every 10 ms took ~38 % of a core from the services (./bench got slower as a whole: HTTP p50 at 100
        // installs/s 7 → 32 ms), for an event that reaches Kafka up to 0.1 s later. ./bench relay measures both.
        String pollInterval = System.getProperty(POLL_INTERVAL_PROPERTY, LOCAL_POLL_INTERVAL_MS);
        config.put("poll.interval.ms", pollInterval);
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(url() + "/connectors/" + name + "/config"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json(config))));
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException("Connect refused connector " + name + ": " + response.statusCode() + " " + response.body());
        }
        // an update restarts the task: until then the old one still answers RUNNING
        Await.until("connector " + name, Duration.ofSeconds(60), process,
                () -> running(name) && taskConfigured(name, "poll.interval.ms", pollInterval));
        connectors.add(name);
        return name;
    }

    /** Stops the connector reading its slot (Connect's pause): changes wait in the WAL until {@link #resume}. */
    public void pause(String connector) {
        changeState(connector, "pause", "PAUSED");
    }

    /** Lets a paused connector read on from where it stopped; returns once its task runs. */
    public void resume(String connector) {
        changeState(connector, "resume", "RUNNING");
    }

    private void changeState(String connector, String action, String state) {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(url() + "/connectors/" + connector + "/" + action))
                .PUT(HttpRequest.BodyPublishers.noBody()));
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException("Connect refused to " + action + " " + connector + ": " + response.statusCode() + " " + response.body());
        }
        Await.until("connector " + connector + " " + state, Duration.ofSeconds(60), process, () -> inState(connector, state));
    }

    public void delete(String connector) {
        connectors.remove(connector);
        send(HttpRequest.newBuilder(URI.create(url() + "/connectors/" + connector)).DELETE());
    }

    private boolean taskConfigured(String connector, String key, String value) {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(url() + "/connectors/" + connector + "/tasks")).GET());
        if (response.statusCode() != 200) {
            return false;
        }
        try {
            JsonNode tasks = JSON.readTree(response.body());
            return !tasks.isEmpty() && value.equals(tasks.get(0).path("config").path(key).asText());
        } catch (IOException e) {
            return false;
        }
    }

    private boolean running(String connector) {
        return inState(connector, "RUNNING");
    }

    private boolean inState(String connector, String state) {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(url() + "/connectors/" + connector + "/status")).GET());
        if (response.statusCode() != 200) {
            return false;
        }
        try {
            JsonNode status = JSON.readTree(response.body());
            JsonNode tasks = status.path("tasks");
            for (JsonNode task : tasks) {
                if ("FAILED".equals(task.path("state").asText())) {
                    throw new IllegalStateException("connector " + connector + " failed: " + task.path("trace").asText());
                }
            }
            return state.equals(status.path("connector").path("state").asText())
                    && !tasks.isEmpty() && state.equals(tasks.get(0).path("state").asText());
        } catch (IOException e) {
            return false;
        }
    }

    private boolean servesConnectors() {
        if (!Ports.listening(port)) {
            return false;
        }
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url() + "/connector-plugins")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 && response.body().contains("PostgresConnector");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            process.ensureAliveAfter(Duration.ofSeconds(2));
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String json(Map<String, String> config) {
        try {
            return JSON.writeValueAsString(config);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    long pid() {
        return process.pid();
    }

    @Override
    public void close() {
        process.stop(Duration.ofSeconds(20));
    }
}
