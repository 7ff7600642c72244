package dev.umbra.bench;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.vertx.core.http.HttpMethod;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Load driver, not a test: it asserts nothing about speed. Installs guilds through guild-service,
 * open loop at a fixed rate, and measures per guild, from when its request was due: the HTTP call,
 * until BotInstalled is on Kafka (commit → Debezium → topic), until licensing's LicenseGranted is on
 * Kafka (two services, two outboxes, two connectors); and, from licensing's inbox rows, from the
 * event's commit in guild-service (recorded_at, Debezium's source.ts_ms) to the consumer's transaction (processed_at).
 * Alone: {@code ./bench event-chain}
 * ({@code -Dbench.rate}, {@code -Dbench.seconds}); {@code ./bench} runs it within the whole suite.
 */
class EventChainBenchmark {

    private static final Pattern GUILD_ID = Pattern.compile("\"guild_id\": ?\"(\\d+)\"");

    /** The figures of one rate; {@code catchUp} is how long after the last request the last LicenseGranted came. */
    record Result(int rate, double achievedRate, int measured, int missing, Latencies http, Latencies toBotInstalled,
                  Latencies toLicenseGranted, Latencies recordedToProcessed, Duration catchUp) {

        /** The system kept up: the driver kept the rate, every license came, the last within 5 s of the last request. */
        boolean held() {
            return achievedRate >= rate * 0.95 && missing == 0 && catchUp.toSeconds() < 5;
        }

        String report() {
            return String.format("""
                    event chain at %d/s (achieved %.0f/s): %d installs measured, %d without LicenseGranted, last license %d ms after the last request
                                                            p50         p90         p99       p99.9         max
                      POST installation (HTTP)          %s
                      request → BotInstalled on Kafka   %s
                      request → LicenseGranted on Kafka %s
                      recorded_at → processed_at        %s
                    """, rate, achievedRate, measured, missing, catchUp.toMillis(), http.row(), toBotInstalled.row(),
                    toLicenseGranted.row(), recordedToProcessed.row());
        }
    }

    void run() throws Exception {
        int rate = Integer.getInteger("bench.rate", 100);
        int seconds = Integer.getInteger("bench.seconds", 30);
        Devstack stack = BenchStack.shared();
        try (LocalSystem system = LocalSystem.start(stack, Benchmarks.repoRoot(), false,
                List.of("guild", "licensing"))) {
            String report = measure(stack, system, rate, seconds, 5).report();
            System.out.println(report);
            Benchmarks.writeResult("event-chain.txt", report);
        }
    }

    /** {@code warmupSeconds} then {@code seconds} at {@code rate} installs per second, one schedule; only the latter counted. */
    static Result measure(Devstack stack, LocalSystem system, int rate, int seconds, int warmupSeconds) throws Exception {
        int warmup = rate * warmupSeconds;
        int total = warmup + rate * seconds;
        List<String> guilds = new ArrayList<>(total);
        for (int i = 0; i < total; i++) {
            guilds.add(Snowflakes.random());
        }
        Map<String, Long> botInstalledSeen = new ConcurrentHashMap<>();
        Map<String, Long> licenseGrantedSeen = new ConcurrentHashMap<>();
        AtomicBoolean running = new AtomicBoolean(true);
        Thread guildReader = TopicReader.start(stack, Topics.of(Aggregates.GUILD), ConsumerRecord::key, botInstalledSeen, running);
        Thread licenseReader = TopicReader.start(stack, Topics.of(Aggregates.LICENSE), r -> guildIdOf(r.value()), licenseGrantedSeen, running);
        try {
            String token = Tokens.bot();
            Latencies http = new Latencies();
            OpenLoop.Run run = OpenLoop.drive(system.url("guild"), rate, total, warmup, http, i -> new OpenLoop.Call(HttpMethod.POST,
                    "/guilds/" + guilds.get(i) + "/installation", token, "{\"installerUserId\":\"223456789012345678\"}", 201));
            long lastDue = run.dueNanos(total - 1);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!licenseGrantedSeen.keySet().containsAll(guilds) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            Latencies toKafka = new Latencies();
            Latencies chain = new Latencies();
            int missing = 0;
            long lastLicense = lastDue;
            for (int i = warmup; i < total; i++) {
                Long installed = botInstalledSeen.get(guilds.get(i));
                Long granted = licenseGrantedSeen.get(guilds.get(i));
                if (installed == null) {
                    toKafka.error();
                } else {
                    toKafka.recordNanos(installed - run.dueNanos(i));
                }
                if (granted == null) {
                    missing++;
                    chain.error();
                } else {
                    chain.recordNanos(granted - run.dueNanos(i));
                    lastLicense = Math.max(lastLicense, granted);
                }
            }
            Latencies inbox = recordedToProcessed(stack, guilds.subList(warmup, total));
            return new Result(rate, run.achievedRate(), total - warmup, missing, http, toKafka, chain, inbox,
                    Duration.ofNanos(lastLicense - lastDue));
        } finally {
            running.set(false);
            guildReader.join();
            licenseReader.join();
        }
    }

    /** From licensing's inbox: the event's Kafka timestamp (Debezium's capture) to the consumer's transaction time. */
    private static Latencies recordedToProcessed(Devstack stack, List<String> guilds) throws Exception {
        Latencies latencies = new Latencies();
        try (Connection connection = stack.postgres().connect("licensing");
             PreparedStatement query = connection.prepareStatement("select extract(epoch from processed_at - recorded_at) * 1000 "
                     + "from processed_event where event_type = 'BotInstalled' and aggregate_id = any(?)")) {
            Array ids = connection.createArrayOf("varchar", guilds.toArray());
            query.setArray(1, ids);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    latencies.recordMillis(rows.getDouble(1));
                }
            }
        }
        return latencies;
    }

    private static String guildIdOf(String json) {
        Matcher matcher = GUILD_ID.matcher(json == null ? "" : json);
        return matcher.find() ? matcher.group(1) : null;
    }
}
