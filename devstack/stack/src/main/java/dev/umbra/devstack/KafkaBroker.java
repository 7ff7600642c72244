package dev.umbra.devstack;

import dev.umbra.events.EventCatalog;
import dev.umbra.events.Topics;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/** An Apache Kafka broker in KRaft mode (one node that is broker and controller), in a child JVM. */
public final class KafkaBroker implements AutoCloseable {

    private static final int PARTITIONS = 3;

    private final int port;
    private final Path workDir;
    private final List<String> command;
    private volatile ChildProcess process;

    private KafkaBroker(int port, Path workDir, List<String> command) {
        this.port = port;
        this.workDir = workDir;
        this.command = command;
    }

    static KafkaBroker start(Path workDir, List<String> jvmOptions) {
        String classpath = ChildClasspath.read("kafka-broker");
        int port = Ports.free();
        int controllerPort = Ports.free();
        Path config = Configs.write(workDir.resolve("kafka-server.properties"), Map.ofEntries(
                Map.entry("process.roles", "broker,controller"),
                Map.entry("node.id", "1"),
                Map.entry("controller.quorum.voters", "1@127.0.0.1:" + controllerPort),
                Map.entry("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort),
                Map.entry("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port),
                Map.entry("controller.listener.names", "CONTROLLER"),
                Map.entry("inter.broker.listener.name", "PLAINTEXT"),
                Map.entry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"),
                Map.entry("log.dirs", workDir.resolve("kafka-data").toString()),
                Map.entry("num.partitions", Integer.toString(PARTITIONS)),
                Map.entry("auto.create.topics.enable", "true"),
                Map.entry("offsets.topic.replication.factor", "1"),
                Map.entry("offsets.topic.num.partitions", "5"),
                Map.entry("transaction.state.log.replication.factor", "1"),
                Map.entry("transaction.state.log.min.isr", "1"),
                Map.entry("share.coordinator.state.topic.replication.factor", "1"),
                Map.entry("share.coordinator.state.topic.min.isr", "1"),
                Map.entry("group.initial.rebalance.delay.ms", "0")));
        List<String> options = Logging.jvmOptions(workDir, jvmOptions);
        ChildProcess.run("kafka-storage format", ChildProcess.javaCommand(options, classpath, "kafka.tools.StorageTool",
                "format", "-t", clusterId(), "-c", config.toString()), workDir, workDir.resolve("kafka.log"), Duration.ofSeconds(60));
        KafkaBroker broker = new KafkaBroker(port, workDir, ChildProcess.javaCommand(options, classpath, "kafka.Kafka", config.toString()));
        broker.launch();
        return broker;
    }

    private void launch() {
        process = ChildProcess.start("kafka", command, workDir, workDir.resolve("kafka.log"), Map.of());
        Await.until("kafka on port " + port, Duration.ofSeconds(60), process, this::answersMetadata);
    }

    /** Stops the broker as an operator would (SIGTERM: it closes its logs cleanly); {@link #restart} brings it back. */
    public void stop() {
        process.stop(Duration.ofSeconds(30));
    }

    /** Starts a stopped broker again on its ports, with its data; returns once it answers. */
    public void restart() {
        launch();
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public Admin admin() {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000);
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000);
        // Kafka loads its configured classes through the context class loader; in a Quarkus test that is the
        // application's, which has its own copy of kafka-clients, while devstack is loaded by the system one.
        Thread thread = Thread.currentThread();
        ClassLoader caller = thread.getContextClassLoader();
        thread.setContextClassLoader(KafkaBroker.class.getClassLoader());
        try {
            return Admin.create(properties);
        } finally {
            thread.setContextClassLoader(caller);
        }
    }

    /**
     * Creates the topic of every aggregate type of the event catalogue, as a deployment does before the
     * services start: a topic that appears later (created on demand by its first record) rebalances every
     * consumer group subscribed by pattern, such as audit's. Also each outbox connector's heartbeat topic,
     * which its first heartbeat would otherwise create on demand, racing the connectors' producers (WARN
     * lines in Kafka's and Connect's logs at every start).
     */
    void createCatalogueTopics() {
        List<NewTopic> topics = new ArrayList<>(EventCatalog.entries().stream().map(EventCatalog.Entry::aggregateType).distinct()
                .map(aggregate -> new NewTopic(Topics.of(aggregate), PARTITIONS, (short) 1)).toList());
        ServiceRegistry.SERVICES.stream().filter(UmbraService::hasOutbox)
                .map(service -> new NewTopic(OutboxConnectors.HEARTBEAT_TOPIC_PREFIX + "." + service.database(), 1, (short) 1))
                .forEach(topics::add);
        try (Admin admin = admin()) {
            admin.createTopics(topics).all().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create the catalogue's topics", e.getCause());
        }
    }

    private boolean answersMetadata() {
        if (!Ports.listening(port)) {
            return false;
        }
        try (Admin admin = admin()) {
            return !admin.describeCluster().nodes().get().isEmpty();
        } catch (Exception e) {
            return false;
        }
    }

    /**
     * A KRaft cluster id: 16 random bytes, URL-safe base64 without padding, and (as Kafka's own
     * generator ensures) not starting with '-', which the storage tool would read as an option.
     */
    static String clusterId() {
        SecureRandom random = new SecureRandom();
        byte[] bytes = new byte[16];
        String id;
        do {
            random.nextBytes(bytes);
            id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        } while (id.startsWith("-"));
        return id;
    }

    long pid() {
        return process.pid();
    }

    @Override
    public void close() {
        process.stop(Duration.ofSeconds(20));
    }
}
