package dev.umbra.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.devstack.ServiceProcess;
import dev.umbra.testing.LogLines;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The five packaged services as processes against devstack, started once for every end-to-end class
 * of this JVM (starting them is most of the module's time) and stopped when the JVM exits.
 */
final class RunningSystem {

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
     * No service wrote an ERROR, or a WARN none of {@code expected} declares, since it started: the
     * log check of the services as they ship (full logger names, see ServiceProcess).
     */
    static void assertCleanLogs(LogLines.Expectation... expected) {
        List<String> unexpected = new ArrayList<>();
        for (ServiceProcess service : get().services()) {
            LogLines.unexpected(service.log(), 0, List.of(expected)).forEach(line -> unexpected.add(service.name() + ": " + line));
        }
        assertThat(unexpected).as("WARN/ERROR lines in the services' logs").isEmpty();
    }
}
