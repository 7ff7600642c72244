package dev.umbra.e2e.bench;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Load driver, not a test: it asserts nothing about speed. Installs guilds at a fixed rate through
 * guild-service and measures, per guild, the HTTP call, the time until BotInstalled is on Kafka
 * (commit → Debezium → topic) and until licensing's LicenseGranted is on Kafka (the whole chain:
 * two services, two outboxes, two connectors). Run it with
 * {@code ./mvnw -pl e2e -am verify -Dit.test=EventChainBenchmark -Dsurefire.failIfNoSpecifiedTests=false -DfailIfNoTests=false}
 * ({@code -Dbench.rate=…} requests per second, {@code -Dbench.count=…}); the report is printed and
 * written to {@code e2e/target/benchmarks/event-chain.txt}.
 */
class EventChainBenchmark {

    private static final Pattern GUILD_ID = Pattern.compile("\"guild_id\": \"(\\d+)\"");

    @Test
    void run() throws Exception {
        int rate = Integer.getInteger("bench.rate", 100);
        int count = Integer.getInteger("bench.count", 3000);
        int warmup = Integer.getInteger("bench.warmup", 300);
        Devstack stack = Devstack.shared();
        try (LocalSystem system = LocalSystem.start(stack, Path.of(System.getProperty("umbra.repo.root", "..")), false,
                List.of("guild", "licensing"))) {
            Map<String, Long> botInstalledSeen = new ConcurrentHashMap<>();
            Map<String, Long> licenseGrantedSeen = new ConcurrentHashMap<>();
            AtomicBoolean running = new AtomicBoolean(true);
            Thread guildReader = reader(stack, Topics.of(Aggregates.GUILD), botInstalledSeen, running, true);
            Thread licenseReader = reader(stack, Topics.of(Aggregates.LICENSE), licenseGrantedSeen, running, false);

            HttpClient http = HttpClient.newHttpClient();
            String token = Tokens.bot();
            String url = system.url("guild");
            List<String> guilds = new ArrayList<>();
            long[] sentAt = new long[warmup + count];
            long[] httpNanos = new long[warmup + count];
            long start = System.nanoTime();
            long interval = 1_000_000_000L / rate;
            for (int i = 0; i < warmup + count; i++) {
                long due = start + i * interval;
                while (System.nanoTime() < due) {
                    Thread.onSpinWait();
                }
                String guildId = Snowflakes.random();
                guilds.add(guildId);
                sentAt[i] = System.nanoTime();
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url + "/guilds/" + guildId + "/installation"))
                        .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"installerUserId\":\"223456789012345678\"}")).build(),
                        HttpResponse.BodyHandlers.ofString());
                httpNanos[i] = System.nanoTime() - sentAt[i];
                if (response.statusCode() != 201) {
                    throw new IllegalStateException("install answered " + response.statusCode() + ": " + response.body());
                }
            }
            double achievedRate = (warmup + count) / ((System.nanoTime() - start) / 1e9);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (licenseGrantedSeen.size() < guilds.size() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            running.set(false);
            guildReader.join();
            licenseReader.join();

            double[] httpMs = new double[count];
            double[] toKafkaMs = new double[count];
            double[] chainMs = new double[count];
            int missing = 0;
            for (int i = 0; i < count; i++) {
                int k = warmup + i;
                httpMs[i] = httpNanos[k] / 1e6;
                Long installed = botInstalledSeen.get(guilds.get(k));
                Long granted = licenseGrantedSeen.get(guilds.get(k));
                if (installed == null || granted == null) {
                    missing++;
                    toKafkaMs[i] = Double.NaN;
                    chainMs[i] = Double.NaN;
                    continue;
                }
                toKafkaMs[i] = (installed - sentAt[k]) / 1e6;
                chainMs[i] = (granted - sentAt[k]) / 1e6;
            }
            String report = String.format("""
                    event chain benchmark: %d installs measured after %d warm-up, target %d/s, achieved %.0f/s, %d without events
                                                          p50       p95       p99       max
                      POST installation (HTTP)        %s
                      request → BotInstalled on Kafka %s
                      request → LicenseGranted on Kafka %s
                    """, count, warmup, rate, achievedRate, missing, row(httpMs), row(toKafkaMs), row(chainMs));
            System.out.println(report);
            Path out = Path.of("target/benchmarks/event-chain.txt");
            Files.createDirectories(out.getParent());
            Files.writeString(out, report);
        }
    }

    private static Thread reader(Devstack stack, String topic, Map<String, Long> seen, AtomicBoolean running, boolean byKey) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-" + UUID.randomUUID());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 5);
        Thread thread = new Thread(() -> {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
                consumer.subscribe(List.of(topic));
                while (running.get()) {
                    consumer.poll(Duration.ofMillis(20)).forEach(record -> {
                        long now = System.nanoTime();
                        String guildId = byKey ? record.key() : guildIdOf(record.value());
                        if (guildId != null) {
                            seen.putIfAbsent(guildId, now);
                        }
                    });
                }
            }
        }, "bench-" + topic);
        thread.start();
        return thread;
    }

    private static String guildIdOf(String json) {
        Matcher matcher = GUILD_ID.matcher(json == null ? "" : json);
        return matcher.find() ? matcher.group(1) : null;
    }

    private static String row(double[] values) {
        double[] sorted = Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (sorted.length == 0) {
            return "no data";
        }
        return String.format("%7.1f ms %7.1f ms %7.1f ms %7.1f ms", at(sorted, 0.50), at(sorted, 0.95), at(sorted, 0.99),
                sorted[sorted.length - 1]);
    }

    private static double at(double[] sorted, double quantile) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(quantile * sorted.length) - 1)];
    }
}
