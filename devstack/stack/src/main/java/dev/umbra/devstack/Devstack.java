package dev.umbra.devstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The outside world of the services, real and without Docker: PostgreSQL with logical decoding, a
 * Kafka broker and a Kafka Connect worker with Debezium, each a child process. Every stack lives in
 * its own temporary folder on its own free ports and leaves nothing behind when closed.
 *
 * <p>The Connect worker starts with the stack, or with {@code umbra.devstack.connect=on-demand} the first
 * time it is needed ({@link #connect()}, {@link #streamOutbox}).
 */
public final class Devstack implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Devstack.class.getName());
    private static final String WORK_DIR_PREFIX = "umbra-devstack-";
    private static final String CONNECT_START_PROPERTY = "umbra.devstack.connect";
    private static Devstack shared;

    private final Path workDir;
    private final PostgresServer postgres;
    private final KafkaBroker kafka;
    private final List<String> connectJvmOptions;
    /** null until started: on demand, the first call that needs it starts it. */
    private KafkaConnectWorker connect;
    private final JwtKeys jwt;
    private final DiscordSandbox discord;
    private final PaymentGatewaySandbox paymentGateway;
    private final Map<String, String> connectorsByDatabase = new ConcurrentHashMap<>();
    /** billing-service's key for billing keys at rest (AES-256), new for every stack, never written anywhere. */
    private final String billingKeyEncryptionKey = randomKey();
    private final Duration startTime;

    private Devstack(Path workDir, PostgresServer postgres, KafkaBroker kafka, List<String> connectJvmOptions, KafkaConnectWorker connect,
            JwtKeys jwt, DiscordSandbox discord, PaymentGatewaySandbox paymentGateway, Duration startTime) {
        this.workDir = workDir;
        this.postgres = postgres;
        this.kafka = kafka;
        this.connectJvmOptions = connectJvmOptions;
        this.connect = connect;
        this.jwt = jwt;
        this.discord = discord;
        this.paymentGateway = paymentGateway;
        this.startTime = startTime;
    }

    /** The stack of this JVM: started on first use, closed when the JVM exits. Tests share it. */
    public static synchronized Devstack shared() {
        if (shared == null) {
            shared = start();
            Runtime.getRuntime().addShutdownHook(new Thread(shared::close, "devstack-shutdown"));
        }
        return shared;
    }

    /** A new stack; its Connect worker starts now or on demand as {@code umbra.devstack.connect} says ({@code eager} by default). */
    public static Devstack start() {
        return start(ConnectStart.of(System.getProperty(CONNECT_START_PROPERTY, "eager")));
    }

    static Devstack start(ConnectStart connectStart) {
        long started = System.nanoTime();
        removeAbandonedStacks();
        Path workDir = createWorkDir();
        List<AutoCloseable> startedSoFar = new ArrayList<>();
        // Postgres needs nothing of Kafka: it starts while the broker and Connect do
        CompletableFuture<PostgresServer> startingPostgres = CompletableFuture.supplyAsync(() -> PostgresServer.start(workDir, randomSecret()));
        // the signing key is made meanwhile too: a 2048-bit RSA key pair takes seconds in the tests' C1-only JVMs
        CompletableFuture<JwtKeys> generatingKeys = CompletableFuture.supplyAsync(() -> JwtKeys.generate(workDir));
        try {
            List<String> jvmOptions = childJvmOptions();
            KafkaBroker kafka = KafkaBroker.start(workDir, jvmOptions);
            startedSoFar.add(kafka);
            kafka.createCatalogueTopics();
            KafkaConnectWorker connect = null;
            if (connectStart == ConnectStart.EAGER) {
                connect = KafkaConnectWorker.start(workDir, kafka.bootstrapServers(), jvmOptions);
                startedSoFar.add(connect);
            }
            PostgresServer postgres = startingPostgres.join();
            JwtKeys jwt = generatingKeys.join();
            DiscordSandbox discord = DiscordSandbox.start();
            startedSoFar.add(discord);
            PaymentGatewaySandbox paymentGateway = PaymentGatewaySandbox.start();
            startedSoFar.add(paymentGateway);
            Duration startTime = Duration.ofNanos(System.nanoTime() - started);
            String connectState = connect == null ? "on demand" : connect.url();
            LOG.info(() -> "devstack up in " + startTime.toMillis() + " ms: postgres 127.0.0.1:" + postgres.port()
                    + ", kafka " + kafka.bootstrapServers() + ", connect " + connectState + " (logs in " + workDir + ")");
            return new Devstack(workDir, postgres, kafka, jvmOptions, connect, jwt, discord, paymentGateway, startTime);
        } catch (RuntimeException e) {
            for (int i = startedSoFar.size() - 1; i >= 0; i--) {
                closeQuietly(startedSoFar.get(i));
            }
            PostgresServer postgres = startingPostgres.exceptionally(failed -> null).join();
            if (postgres != null) {
                closeQuietly(postgres);
            }
            // it writes its public key into the folder: done before the folder goes, or it could outlive it
            generatingKeys.exceptionally(failed -> null).join();
            deleteRecursively(workDir);
            throw e;
        }
    }

    public PostgresServer postgres() {
        return postgres;
    }

    public KafkaBroker kafka() {
        return kafka;
    }

    /** The Connect worker; started now if the stack started without it. */
    public synchronized KafkaConnectWorker connect() {
        if (connect == null) {
            long started = System.nanoTime();
            KafkaConnectWorker worker = KafkaConnectWorker.start(workDir, kafka.bootstrapServers(), connectJvmOptions);
            LOG.info(() -> "kafka connect up on demand in " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms: " + worker.url());
            connect = worker;
        }
        return connect;
    }

    public JwtKeys jwt() {
        return jwt;
    }

    public DiscordSandbox discord() {
        return discord;
    }

    public PaymentGatewaySandbox paymentGateway() {
        return paymentGateway;
    }

    public Path workDir() {
        return workDir;
    }

    /** How long {@link #start()} took: without the Connect worker's start when that waits for demand. */
    public Duration startTime() {
        return startTime;
    }

    /**
     * Streams a service database's outbox to Kafka with the service's connector ({@link OutboxConnectors}).
     * The service must have migrated: the platform migration creates the publication and the slot,
     * so whatever it committed before this call is streamed too. Idempotent.
     */
    public void streamOutbox(String service, String database) {
        KafkaConnectWorker worker = connect();
        connectorsByDatabase.computeIfAbsent(database, db -> worker.register(ServiceRegistry.named(service), postgres, db));
    }

    /** The settings a service needs to run against this stack, as Quarkus configuration properties. */
    public Map<String, String> serviceConfig(String database) {
        Map<String, String> config = new LinkedHashMap<>();
        // The service runs as a role that owns nothing; its migrations run as the database's owner.
        PostgresServer.ServiceRole role = postgres.serviceRole(database);
        config.put("quarkus.datasource.username", role.name());
        config.put("quarkus.datasource.password", role.password());
        config.put("quarkus.flyway.username", postgres.user());
        config.put("quarkus.flyway.password", postgres.password());
        config.put("quarkus.datasource.reactive.url", postgres.reactiveUrl(database));
        config.put("quarkus.datasource.jdbc.url", postgres.jdbcUrl(database));
        config.put("kafka.bootstrap.servers", kafka.bootstrapServers());
        config.put("mp.jwt.verify.publickey.location", jwt.publicKeyFile().toUri().toString());
        config.put("mp.jwt.verify.issuer", JwtKeys.ISSUER);
        config.put("mp.jwt.verify.audiences", JwtKeys.AUDIENCE);
        config.put("umbra.discord.url", discord.url());
        config.put("umbra.discord.bot-token", discord.botToken());
        config.put("umbra.payment-gateway.url", paymentGateway.url());
        config.put("umbra.payment-gateway.secret-key", paymentGateway.secretKey());
        config.put("umbra.payment-gateway.callback-secret", paymentGateway.callbackSecret());
        config.put("umbra.billing-key.encryption.current-version", "1");
        config.put("umbra.billing-key.encryption.keys.1", billingKeyEncryptionKey);
        // The local run and the tests move billing's clock (dunning, renewals); never on in production.
        config.put("umbra.billing.clock-control.enabled", "true");
        // Services are stopped, killed and restarted here on purpose: a dead consumer's partitions move on
        // after 10 s, not 45, and a group rebalances within a second, not three.
        config.put("umbra.kafka.session-timeout-ms", "10000");
        config.put("umbra.kafka.heartbeat-interval-ms", "1000");
        // and whoever waits for a group to catch up waits a second for its commit, not five
        config.put("umbra.kafka.commit-interval-ms", "1000");
        return config;
    }

    /**
     * The broker's and Connect's JVM options, plus those of {@code umbra.devstack.jvm-options}: the build
     * adds its tests' quick-start options there (a short-lived stack spends more CPU compiling Kafka with
     * C2 than running it), run-local and the benchmarks do not.
     */
    private static List<String> childJvmOptions() {
        List<String> options = new ArrayList<>(List.of("-Xms128m", "-Xmx512m", "-XX:+UseSerialGC", "-Djava.awt.headless=true"));
        Arrays.stream(System.getProperty("umbra.devstack.jvm-options", "").split(" ")).filter(o -> !o.isBlank()).forEach(options::add);
        return List.copyOf(options);
    }

    @Override
    public synchronized void close() {
        discord.close();
        paymentGateway.close();
        if (connect != null) {
            connectorsByDatabase.values().forEach(connector -> runQuietly(() -> connect.delete(connector)));
            closeQuietly(connect);
        }
        connectorsByDatabase.keySet().forEach(database -> runQuietly(() -> postgres.dropReplicationState(database)));
        connectorsByDatabase.clear();
        closeQuietly(kafka);
        closeQuietly(postgres);
        deleteRecursively(workDir);
    }

    /** When the Connect worker starts: with the stack, or when first needed. */
    enum ConnectStart {
        EAGER,
        ON_DEMAND;

        static ConnectStart of(String propertyValue) {
            return switch (propertyValue) {
                case "eager" -> EAGER;
                case "on-demand" -> ON_DEMAND;
                default -> throw new IllegalArgumentException(CONNECT_START_PROPERTY + " is 'eager' or 'on-demand', not '" + propertyValue + "'");
            };
        }
    }

    private static Path createWorkDir() {
        try {
            Path dir = Files.createTempDirectory(WORK_DIR_PREFIX);
            Files.writeString(dir.resolve("owner.pid"), Long.toString(ProcessHandle.current().pid()));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stacks whose JVM died without closing them (kill -9): stop their servers and delete their folders. */
    static void removeAbandonedStacks() {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (Stream<Path> dirs = Files.list(tmp)) {
            dirs.filter(dir -> dir.getFileName().toString().startsWith(WORK_DIR_PREFIX))
                    .filter(Devstack::abandoned)
                    .forEach(dir -> {
                        ProcessHandle.allProcesses()
                                .filter(process -> commandLineMentions(process, dir.toString()))
                                .forEach(ProcessHandle::destroyForcibly);
                        deleteRecursively(dir);
                    });
        } catch (IOException e) {
            LOG.warning("cannot look for abandoned stacks: " + e.getMessage());
        }
    }

    /**
     * Read from /proc where there is one: for a command line longer than a page (Kafka's and Connect's classpaths) the
     * JDK's {@code ProcessHandle.Info} gives no arguments and a command line cut at 4 KiB, before the stack's folder.
     */
    static boolean commandLineMentions(ProcessHandle process, String text) {
        Path cmdline = Path.of("/proc", Long.toString(process.pid()), "cmdline");
        if (Files.isDirectory(cmdline.getParent().getParent())) {
            try {
                return new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).contains(text);
            } catch (IOException | SecurityException e) {
                return false; // gone meanwhile, or not ours to read
            }
        }
        return process.info().commandLine().map(line -> line.contains(text)).orElse(false);
    }

    private static boolean abandoned(Path dir) {
        try {
            long owner = Long.parseLong(Files.readString(dir.resolve("owner.pid")).trim());
            return ProcessHandle.of(owner).map(p -> !p.isAlive()).orElse(true);
        } catch (IOException | NumberFormatException e) {
            return false;
        }
    }

    private static String randomKey() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    private static String randomSecret() {
        byte[] bytes = new byte[18];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private static void runQuietly(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            LOG.warning("devstack teardown: " + e.getMessage());
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.warning("devstack teardown: " + e.getMessage());
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            LOG.warning("cannot delete " + dir + ": " + e.getMessage());
        }
    }
}
