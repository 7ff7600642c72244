package dev.umbra.licensing.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.umbra.events.guild.BotInstalled;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Load driver, not a test: it asserts nothing about speed. Produces a backlog of BotInstalled (as
 * Debezium would) while licensing runs, and prints how fast licensing drains it (events applied per
 * second, from the first license to the last). Run it with
 * {@code ./mvnw -B -pl licensing-service/it -am verify -Dit.test=InboxDrainBenchmark -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
 * -Dfailsafe.failIfNoSpecifiedTests=false}
 * ({@code -Dbench.count=…}, 5,000 by default).
 */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "licensing_bench"))
class InboxDrainBenchmark {

    private static final Database DB = Database.of("licensing_bench");

    @Test
    void drainABacklogOfBotInstalled() {
        int count = Integer.getInteger("bench.count", 5000);
        long before = DB.count("select count(*) from license");
        long start = System.nanoTime();
        List<BotInstalled> backlog = IntStream.range(0, count)
                .mapToObj(i -> new BotInstalled(Snowflakes.random(), "223456789012345678")).toList();
        OutboxRecords.publishAll(backlog, Instant.now());
        long produced = System.nanoTime();

        await().atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> DB.count("select count(*) from license") - before >= count);
        long drained = System.nanoTime();
        double seconds = (drained - start) / 1e9;
        System.out.printf("inbox drain: %d BotInstalled applied by licensing in %.1f s from the first record produced"
                        + " to the last license: %.0f events/s (producing took %.1f s)%n",
                count, seconds, count / seconds, (produced - start) / 1e9);
        assertThat(DB.count("select count(*) from license") - before).isEqualTo(count);
    }
}
