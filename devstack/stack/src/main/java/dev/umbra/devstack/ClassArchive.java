package dev.umbra.devstack;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A class-data-sharing archive per child JVM kind (Kafka's broker, its storage tool, Connect), kept in the
 * directory {@code umbra.devstack.class-archive-dir} names: a build starts a stack per test module, and
 * most of a broker's or Connect's start-up CPU is loading and verifying the same classes each time. The
 * first child of a kind dumps the classes it loaded when it exits; later ones map that archive. Without
 * the property (run-local, benchmarks) nothing changes.
 */
final class ClassArchive {

    private static final String DUMP_OPTION = "-XX:ArchiveClassesAtExit=";
    private static final String PROPERTY = "umbra.devstack.class-archive-dir";
    // a JVM that exited on its own or on SIGTERM finished its dump; one killed or crashed may have left part of one
    private static final int STOPPED = 128 + 15;
    private static final Duration STALE = Duration.ofHours(1);

    private ClassArchive() {
    }

    /** The option to map the archive of this command, or to dump one when there is none yet; none without the property. */
    static List<String> options(String mainClass, String classpath) {
        Optional<Path> archive = archiveFor(mainClass, classpath);
        if (archive.isEmpty()) {
            return List.of();
        }
        if (Files.isRegularFile(archive.get())) {
            return List.of("-XX:SharedArchiveFile=" + archive.get());
        }
        // several stacks may start at once: each dumps to its own file, and the last to finish wins
        return List.of(DUMP_OPTION + archive.get() + "." + UUID.randomUUID() + ".tmp");
    }

    /** Publishes the archive the process dumps as it exits, when its command asked for one. */
    static void publishOnExit(Process process, List<String> command) {
        command.stream().filter(option -> option.startsWith(DUMP_OPTION)).findFirst().map(option -> Path.of(option.substring(DUMP_OPTION.length())))
                .ifPresent(dumped -> process.onExit().thenAccept(exited -> publish(dumped, exited.exitValue())));
    }

    private static void publish(Path dumped, int exitValue) {
        try {
            if ((exitValue == 0 || exitValue == STOPPED) && Files.isRegularFile(dumped) && Files.size(dumped) > 0) {
                String name = dumped.getFileName().toString();
                Files.move(dumped, dumped.resolveSibling(name.substring(0, name.indexOf(".jsa.") + ".jsa".length())), StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } else {
                Files.deleteIfExists(dumped);
            }
        } catch (IOException e) {
            // a build without the archive only starts slower
        }
    }

    /** Dumps whose JVM's parent died before it could publish or delete them (tens of MB each). */
    private static void deleteStaleDumps(Path directory) throws IOException {
        Instant before = Instant.now().minus(STALE);
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".tmp")).toList()) {
                try {
                    if (Files.getLastModifiedTime(file).toInstant().isBefore(before)) {
                        Files.deleteIfExists(file);
                    }
                } catch (IOException gone) {
                    // another stack deleted or published it meanwhile
                }
            }
        }
    }

    private static Optional<Path> archiveFor(String mainClass, String classpath) {
        String dir = System.getProperty(PROPERTY, "");
        if (dir.isBlank()) {
            return Optional.empty();
        }
        try {
            Path directory = Files.createDirectories(Path.of(dir));
            deleteStaleDumps(directory);
            // an archive fits only the JVM and the class path it was dumped with (the JVM checks both, and maps nothing otherwise)
            String identity = String.join("\n", System.getProperty("java.home"), System.getProperty("java.vm.version"), classpath);
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(identity.getBytes(StandardCharsets.UTF_8));
            return Optional.of(directory.resolve(mainClass + "-" + HexFormat.of().formatHex(digest, 0, 8) + ".jsa"));
        } catch (IOException | NoSuchAlgorithmException e) {
            return Optional.empty();
        }
    }
}
