package dev.umbra.bench;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * One consumer service's backlog drain alone, the loop to profile it in: devstack and that service only; each
 * round stops the service, produces {@code bench.drain.events} BotInstalled of new guilds to umbra.guild as the
 * outbox router would (for audit, also each guild's LicenseGranted to umbra.license, as licensing would publish
 * it: audit's backlog in the suite), starts it and times it until its group's lag is zero. The first round also
 * warms the JIT. {@code bench.drain.service}: licensing (default) or audit. A JFR recording:
 * {@code -Dbench.service.jvm-options="-XX:StartFlightRecording=filename=/tmp/drain.jfr"}.
 * {@code ./bench drain} ({@code -Dbench.drain.rounds=3}).
 */
class DrainBenchmark {

    private final int events = Integer.getInteger("bench.drain.events", 20_000);
    private final int rounds = Integer.getInteger("bench.drain.rounds", 3);
    private final String service = System.getProperty("bench.drain.service", "licensing");

    void run() throws Exception {
        boolean audit = switch (service) {
            case "licensing" -> false;
            case "audit" -> true;
            default -> throw new IllegalArgumentException("bench.drain.service is licensing or audit, not " + service);
        };
        Path repoRoot = Benchmarks.repoRoot();
        Devstack stack = BenchStack.shared();
        // the service as it ships (C1 only, as the images run it), plus whatever the run asks for
        System.setProperty("umbra.service.jvm-options", System.getProperty("bench.service.jvm-options", ""));
        try (LocalSystem system = LocalSystem.start(stack, repoRoot, false, List.of(service));
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers()))) {
            for (int round = 1; round <= rounds; round++) {
                system.stop(service);
                List<String> guilds = IntStream.range(0, events).mapToObj(i -> Snowflakes.random()).toList();
                OutboxRecords.publishAll(guilds.stream().map(guild -> new BotInstalled(guild, "223456789012345678")).toList(), Instant.now());
                if (audit) {
                    OutboxRecords.publishAll(guilds.stream().map(guild -> new LicenseGranted(UUID.randomUUID(), guild, "FREE")).toList(),
                            Instant.now());
                }
                Drain.Result drained = audit
                        ? Drain.measure(system, admin, "audit", "audit-service.all-topics",
                                topic -> topic.equals("umbra.guild") || topic.equals("umbra.license"), Duration.ofMinutes(3))
                        : Drain.measure(system, admin, "licensing", "licensing-service.umbra.guild", topic -> topic.equals("umbra.guild"),
                                Duration.ofMinutes(3));
                System.out.printf("round %d of %d: %s%n", round, rounds, drained.report());
            }
        }
    }
}
