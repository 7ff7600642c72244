package dev.umbra.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A stack whose JVM was killed leaves servers behind; the next stack to start stops them and deletes their folder. */
class AbandonedStacksTest {

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stopWhatIsLeft() {
        started.forEach(Process::destroyForcibly);
    }

    @Test
    void theServersOfAStackWhoseJvmDiedAreStoppedHoweverLongTheirCommandLines() throws Exception {
        Path abandoned = stackFolderOwnedBy(deadPid());
        // Kafka's and Connect's command lines: a classpath of many KiB, the stack's folder after it
        Process broker = serverMentioning("-cp " + "/m2/some/library.jar:".repeat(400), abandoned.resolve("kafka/server.properties"));
        Process postgres = serverMentioning("-D", abandoned.resolve("pgdata"));
        Path alive = stackFolderOwnedBy(ProcessHandle.current().pid());
        Process otherStacksServer = serverMentioning("-cp " + "/m2/some/library.jar:".repeat(400), alive.resolve("kafka/server.properties"));

        Devstack.removeAbandonedStacks();

        assertThat(broker.waitFor(10, TimeUnit.SECONDS)).as("the abandoned broker stopped").isTrue();
        assertThat(postgres.waitFor(10, TimeUnit.SECONDS)).as("the abandoned database stopped").isTrue();
        assertThat(Files.exists(abandoned)).isFalse();
        assertThat(otherStacksServer.isAlive()).as("a live stack's server").isTrue();
        assertThat(Files.exists(alive)).isTrue();
        deleteTree(alive);
    }

    private static long deadPid() throws Exception {
        Process process = new ProcessBuilder("true").start();
        process.waitFor();
        return process.pid();
    }

    private static Path stackFolderOwnedBy(long pid) throws IOException {
        Path dir = Files.createTempDirectory("umbra-devstack-");
        Files.writeString(dir.resolve("owner.pid"), Long.toString(pid));
        return dir;
    }

    /** A shell waiting on its never-written stdin: a builtin, so the process keeps this command line until killed. */
    private Process serverMentioning(String options, Path path) throws IOException {
        Process process = new ProcessBuilder("sh", "-c", "read never", options, path.toString()).start();
        started.add(process);
        return process;
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
