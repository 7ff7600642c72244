package dev.umbra.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code ./bench [name]}: runs one benchmark against devstack and the packaged services, the whole suite
 * ({@link SystemBenchmark}) when no name is given. A benchmark is a program, never a test: nothing here
 * runs in {@code ./mvnw verify}, and no figure is asserted, only measured and reported. Settings are
 * system properties ({@code ./bench drain -Dbench.drain.rounds=5}); each class lists its own.
 */
public final class Benchmarks {

    @FunctionalInterface
    private interface Benchmark {
        void run() throws Exception;
    }

    /** Held so the level sticks: the Kafka clients' INFO is their whole configuration, for every client the drivers open. */
    private static final Logger KAFKA_CLIENTS = Logger.getLogger("org.apache.kafka");

    private static final Map<String, Benchmark> BY_NAME = new LinkedHashMap<>();

    static {
        BY_NAME.put("suite", () -> new SystemBenchmark().run());
        BY_NAME.put("event-chain", () -> new EventChainBenchmark().run());
        BY_NAME.put("entitlement-reads", () -> new EntitlementReadBenchmark().run());
        BY_NAME.put("drain", () -> new DrainBenchmark().run());
        BY_NAME.put("audit-timeline", () -> new AuditTimelineBenchmark().run());
        BY_NAME.put("appcds", () -> new AppCdsBenchmark().run());
        BY_NAME.put("relay", () -> new RelayBenchmark().run());
        BY_NAME.put("money", () -> new MoneyPathBenchmark().run());
    }

    private Benchmarks() {
    }

    /** Where the packaged services are ({@code <service>/target/quarkus-app}) and docs/benchmarks.md is rewritten. */
    static Path repoRoot() {
        return Path.of(System.getProperty("umbra.repo.root", ".")).toAbsolutePath().normalize();
    }

    /** A benchmark's report beside the console's: {@code benchmarks/target/results/<name>}. */
    static void writeResult(String name, String report) throws IOException {
        Path out = repoRoot().resolve("benchmarks/target/results").resolve(name);
        Files.createDirectories(out.getParent());
        Files.writeString(out, report);
    }

    public static void main(String[] args) throws Exception {
        KAFKA_CLIENTS.setLevel(Level.WARNING);
        String name = args.length == 0 ? "suite" : args[0];
        Benchmark benchmark = BY_NAME.get(name);
        if (benchmark == null || args.length > 1) {
            System.err.println("usage: ./bench [" + String.join("|", BY_NAME.keySet()) + "] [-Dbench.…=…]");
            System.exit(2);
        }
        try {
            benchmark.run();
        } catch (Exception e) {
            e.printStackTrace();
            // devstack and the services stop in the shutdown hooks either way
            System.exit(1);
        }
        System.exit(0);
    }
}
