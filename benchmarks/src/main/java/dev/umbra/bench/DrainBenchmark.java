package dev.umbra.bench;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Licensing's backlog drain alone, the loop to profile it in: devstack and licensing-service only; each
 * round stops the service, produces {@code bench.drain.events} BotInstalled of new guilds to umbra.guild
 * as the outbox router would, starts it and times it until its group's lag is zero. The first round
 * also warms the JIT. A JFR recording: {@code -Dbench.service.jvm-options="-XX:StartFlightRecording=filename=/tmp/licensing.jfr"}.
 * {@code ./bench drain} ({@code -Dbench.drain.rounds=3}).
 */
class DrainBenchmark {

    private final int events = Integer.getInteger("bench.drain.events", 20_000);
    private final int rounds = Integer.getInteger("bench.drain.rounds", 3);

    void run() throws Exception {
        Path repoRoot = Benchmarks.repoRoot();
        Devstack stack = BenchStack.shared();
        // the service as it ships (C2 compiler), plus whatever the run asks for
        System.setProperty("umbra.service.jvm-options", System.getProperty("bench.service.jvm-options", ""));
        try (LocalSystem system = LocalSystem.start(stack, repoRoot, false, List.of("licensing"));
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers()))) {
            for (int round = 1; round <= rounds; round++) {
                system.stop("licensing");
                OutboxRecords.publishAll(IntStream.range(0, events).mapToObj(i -> new BotInstalled(Snowflakes.random(), "223456789012345678"))
                        .toList(), Instant.now());
                Drain.Result drained = Drain.measure(system, admin, "licensing", "licensing-service.umbra.guild",
                        topic -> topic.equals("umbra.guild"), Duration.ofMinutes(3));
                System.out.printf("round %d of %d: %s%n", round, rounds, drained.report());
            }
        }
    }
}
