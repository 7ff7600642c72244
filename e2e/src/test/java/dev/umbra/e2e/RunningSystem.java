package dev.umbra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.devstack.ServiceProcess;
import dev.umbra.testing.LogLines;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The five packaged services as processes against devstack, started once for every end-to-end class
 * of this JVM (starting them is most of the module's time) and stopped when the JVM exits.
 */
final class RunningSystem {

    /**
     * Five services starting at once on two cores: a readiness probe may not get a database connection
     * within the pool's acquire timeout (2 s) and says so; the start waits for the next probe.
     */
    private static final LogLines.Expectation STARTING_TOGETHER = new LogLines.Expectation(
            "io.quarkus.reactive.datasource.runtime.ReactiveDatasourceHealthCheck", "WARN", "Timeout waiting for connection");

    /** How far each service's log, and PostgreSQL's, has been checked. */
    private static final Map<String, Long> CHECKED = new HashMap<>();
    private static final String POSTGRESQL = "postgresql";

    private static LocalSystem system;

    private RunningSystem() {
    }

    static synchronized LocalSystem get() {
        if (system == null) {
            Path repoRoot = Path.of(System.getProperty("umbra.repo.root", ".."));
            LocalSystem started = LocalSystem.start(Devstack.shared(), repoRoot, false, List.of());
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "e2e-services-shutdown"));
            system = started;
        }
        return system;
    }

    /**
     * No service wrote an ERROR, or a WARN none of {@code expected} declares, since the last check (a test
     * class's faults are declared by that class and are not the next one's): the log check of the services
     * as they ship (full logger names, see ServiceProcess). Nor did PostgreSQL refuse a statement, but for lost
     * races and what {@code expected} declares under {@link LogLines#POSTGRESQL}.
     */
    static synchronized void assertCleanLogs(LogLines.Expectation... expected) {
        keepLogs();
        List<LogLines.Expectation> allowed = new ArrayList<>(List.of(expected));
        allowed.add(STARTING_TOGETHER);
        List<String> unexpected = new ArrayList<>();
        for (ServiceProcess service : get().services()) {
            long mark = LogLines.mark(service.log());
            LogLines.unexpected(service.log(), CHECKED.getOrDefault(service.name(), 0L), allowed)
                    .forEach(line -> unexpected.add(service.name() + ": " + line));
            CHECKED.put(service.name(), mark);
        }
        Path serverLog = Devstack.shared().postgres().log();
        long mark = LogLines.mark(serverLog);
        LogLines.unexpectedInServerLog(serverLog, CHECKED.getOrDefault(POSTGRESQL, 0L), allowed)
                .forEach(line -> unexpected.add("PostgreSQL: " + line));
        CHECKED.put(POSTGRESQL, mark);
        assertThat(unexpected).as("WARN/ERROR lines in the services' logs and ERROR/FATAL lines in PostgreSQL's").isEmpty();
    }

    /**
     * The services' and the servers' logs as they are now, copied to {@code target/e2e-logs}: devstack deletes its
     * folder when the JVM exits, and a scenario that failed is explained by them.
     */
    private static void keepLogs() {
        Path kept = Path.of("target", "e2e-logs");
        try (Stream<Path> logs = Files.list(Devstack.shared().workDir())) {
            Files.createDirectories(kept);
            for (Path log : logs.filter(file -> file.getFileName().toString().endsWith(".log")).toList()) {
                Files.copy(log, kept.resolve(log.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
