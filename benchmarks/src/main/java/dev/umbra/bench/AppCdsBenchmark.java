package dev.umbra.bench;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.devstack.ServiceProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The start-up alternative to native images that runs here (issue #12): each service's JVM build with an
 * application class-data sharing archive against the plain JVM build. The archive is the JDK's dynamic
 * one, written when a service that ran with {@code -XX:ArchiveClassesAtExit} stops (what it loaded
 * starting and serving its first requests); the measured runs map it with {@code -XX:SharedArchiveFile}.
 * Each run: the service stopped, launched, timed until its readiness check first answers 200 (polled
 * every 50 ms), and its VmRSS read then. Both builds alternate, so that a noisy minute hits both.
 * {@code ./bench appcds} ({@code -Dbench.appcds.runs=5}, {@code -Dbench.appcds.services=guild,licensing}).
 */
class AppCdsBenchmark {

    private final int runs = Integer.getInteger("bench.appcds.runs", 5);
    private final List<String> services = Arrays.asList(System.getProperty("bench.appcds.services",
            "guild,licensing,billing,recovery,audit").split(","));

    private record Run(Duration startUp, long rssKiB) {
    }

    void run() throws Exception {
        Path repoRoot = Benchmarks.repoRoot();
        Path archives = Files.createTempDirectory("umbra-appcds");
        Devstack stack = BenchStack.shared();
        try (LocalSystem system = LocalSystem.start(stack, repoRoot, false, services)) {
            StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
                    "| service | plain JVM: start-up median (min–max) | with AppCDS | plain VmRSS at ready, median | with AppCDS | archive |%n"
                            + "|---|---|---|---|---|---|%n"));
            for (String service : services) {
                Path archive = archives.resolve(service + ".jsa");
                // a first start writes the archive at its exit
                restart(system, service, "-XX:ArchiveClassesAtExit=" + archive);
                // writing the archive at exit takes longer than the usual stop's grace period: SIGTERM, and wait for it
                ProcessHandle writing = ProcessHandle.of(process(system, service).pid()).orElseThrow();
                writing.destroy();
                writing.onExit().get(3, TimeUnit.MINUTES);
                system.stop(service);
                if (!Files.isRegularFile(archive)) {
                    Path log = process(system, service).log();
                    List<String> lines = Files.readAllLines(log);
                    System.out.printf("no archive written for %s; the end of %s:%n%s%n", service, log,
                            String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())));
                    table.append(String.format(Locale.ROOT, "| %s | no archive written | | | | |%n", service));
                    system.restart(service);
                    continue;
                }
                List<Run> plain = new ArrayList<>();
                List<Run> shared = new ArrayList<>();
                for (int i = 0; i < runs; i++) {
                    plain.add(restart(system, service, ""));
                    shared.add(restart(system, service, "-XX:SharedArchiveFile=" + archive + " -Xshare:on"));
                }
                String row = String.format(Locale.ROOT, "| %s | %s | %s | %d MiB | %d MiB | %d MiB |%n", service, times(plain), times(shared),
                        median(plain.stream().map(Run::rssKiB).toList()) / 1024, median(shared.stream().map(Run::rssKiB).toList()) / 1024,
                        Files.size(archive) / (1024 * 1024));
                System.out.print("AppCDS " + row);
                table.append(row);
            }
            System.out.printf("AppCDS against the plain JVM build, %d runs each, %s, load %.2f:%n%s", runs, Footprint.machine(),
                    Footprint.load(), table);
        }
    }

    /** Stops the service, launches it with {@code jvmOptions}, and times it until ready. */
    private static Run restart(LocalSystem system, String service, String jvmOptions) {
        system.stop(service);
        System.setProperty("umbra.service.jvm-options", jvmOptions);
        long launched = System.nanoTime();
        system.restart(service);
        Duration startUp = Duration.ofNanos(System.nanoTime() - launched);
        return new Run(startUp, Footprint.rssKiB(process(system, service).pid()));
    }

    private static ServiceProcess process(LocalSystem system, String service) {
        return system.services().stream().filter(s -> s.service().name().equals(service)).findFirst().orElseThrow();
    }

    private static String times(List<Run> runs) {
        List<Long> millis = runs.stream().map(run -> run.startUp().toMillis()).sorted().toList();
        return String.format(Locale.ROOT, "%.2f s (%.2f–%.2f)", median(millis) / 1000.0, millis.get(0) / 1000.0,
                millis.get(millis.size() - 1) / 1000.0);
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
