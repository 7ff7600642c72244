package dev.umbra.bench;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.testing.Tokens;
import io.vertx.core.http.HttpMethod;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Load driver, not a test. Open loop at a fixed rate (a Vert.x client on one event loop) (latency counted from when each request was
 * due, so a stall is not hidden): {@code GET /guilds/{id}/entitlements} against the packaged
 * licensing-service, then the raw PostgreSQL point select of the same row with pgbench at the same
 * rate as the reference. Run with
 * {@code ./bench entitlement-reads} ({@code -Dbench.rate}, {@code -Dbench.seconds}); the report goes to
 * {@code benchmarks/target/results/entitlements.txt}.
 * {@code ./bench} runs it within the whole suite.
 */
class EntitlementReadBenchmark {

    static final int GUILDS = 10_000;

    /**
     * The endpoint, the raw select at the same rate, the service's own mean time per request (µs), and the
     * warm-up rounds before the measured run.
     */
    record Result(int rate, int seconds, Latencies http, Latencies sql, double serverMeanMicros, double achievedRate, List<String> warmup) {

        String report() {
            return String.format("""
                    entitlement reads: %d guilds, %d req/s (achieved %.0f/s) for %d s after a warm-up (%s)
                                                          p50         p90         p99       p99.9         max
                      GET /guilds/{id}/entitlements   %s
                      raw PostgreSQL point select     %s
                      server time of the endpoint (Micrometer timer, measured run): mean %.0f µs
                    """, GUILDS, rate, achievedRate, seconds, String.join(", ", warmup), http.row(), sql.row(), serverMeanMicros);
        }
    }

    void run() throws Exception {
        int rate = Integer.getInteger("bench.rate", 2000);
        int seconds = Integer.getInteger("bench.seconds", 30);
        Devstack stack = BenchStack.shared();
        try (LocalSystem system = LocalSystem.start(stack, Benchmarks.repoRoot(), false,
                List.of("licensing"))) {
            String report = measure(stack, system, rate, seconds, Integer.getInteger("bench.read-warmup-seconds", 10)).report();
            System.out.println(report);
            Benchmarks.writeResult("entitlements.txt", report);
        }
    }

    /**
     * A freshly started service spends its first minute of load compiling (on two cores C2 took 0.6 of a
     * core for over 40 s, before the services ran C1 only), which a service in production does not meet at full rate: the
     * measured run starts once it has settled. Warm-up rounds of {@code roundSeconds}, the rate doubling
     * from an eighth of {@code rate}, then {@code rate} again until a round's p99 is no more than a fifth
     * better than the round before, at most {@code bench.read-warmup-budget} seconds (120); each round is
     * reported.
     */
    static Result measure(Devstack stack, LocalSystem system, int rate, int seconds, int roundSeconds) throws Exception {
        seed(stack);
        String url = system.url("licensing");
        String management = system.managementUrl("licensing");
        String token = Tokens.bot();
        List<String> warmup = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(Integer.getInteger("bench.read-warmup-budget", 120)).toNanos();
        for (int step = Math.max(1, rate / 8); step < rate; step *= 2) {
            warmup.add(step + "/s p99 " + Latencies.ms(drive(url, token, step, roundSeconds).millis(99)));
        }
        double previous = Double.MAX_VALUE;
        while (System.nanoTime() < deadline) {
            double p99 = drive(url, token, rate, roundSeconds).millis(99);
            warmup.add(rate + "/s p99 " + Latencies.ms(p99));
            if (p99 > previous * 0.8) {
                break;
            }
            previous = p99;
        }
        double[] before = serverTimer(management, "/guilds/{guildId}/entitlements");
        Latencies http = new Latencies();
        OpenLoop.Run run = OpenLoop.drive(url, rate, rate * seconds, 0, http, reads(token));
        double[] after = serverTimer(management, "/guilds/{guildId}/entitlements");
        double count = after[0] - before[0];
        double serverMean = count == 0 ? Double.NaN : (after[1] - before[1]) / count * 1e6;
        return new Result(rate, seconds, http, pgbench(stack, rate, seconds), serverMean, run.achievedRate(), warmup);
    }

    private static Latencies drive(String url, String token, int rate, int seconds) throws InterruptedException {
        Latencies latencies = new Latencies();
        OpenLoop.drive(url, rate, rate * seconds, 0, latencies, reads(token));
        return latencies;
    }

    private static java.util.function.IntFunction<OpenLoop.Call> reads(String token) {
        return i -> new OpenLoop.Call(HttpMethod.GET, "/guilds/" + (100000000000000000L + 1 + (i % GUILDS)) + "/entitlements", token,
                null, 200);
    }

    /** Count and total seconds of the service's own timer for the endpoint {@code uri}: the server's share of the latency. */
    static double[] serverTimer(String managementUrl, String uri) throws Exception {
        String metrics = java.net.http.HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(managementUrl + "/q/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        double[] countAndSum = new double[2];
        metrics.lines().filter(l -> l.contains("uri=\"" + uri + "\"") && l.contains("status=\"200\"")).forEach(line -> {
            double value = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            if (line.startsWith("http_server_requests_seconds_count")) {
                countAndSum[0] += value;
            } else if (line.startsWith("http_server_requests_seconds_sum")) {
                countAndSum[1] += value;
            }
        });
        return countAndSum;
    }

    private static void seed(Devstack stack) throws Exception {
        try (Connection connection = stack.postgres().connect("licensing"); Statement statement = connection.createStatement()) {
            statement.execute("insert into license (license_id, guild_id, plan, status, paid_plan, expires_at, updated_at) "
                    + "select gen_random_uuid(), (100000000000000000 + g)::text, 'PRO', 'ACTIVE', 'PRO', now() + interval '30 days', now() "
                    + "from generate_series(1, " + GUILDS + ") g on conflict do nothing");
            statement.execute("analyze license");
        }
    }

    private static Latencies pgbench(Devstack stack, int rate, int seconds) throws Exception {
        Path work = Files.createTempDirectory("pgbench");
        Path script = work.resolve("select.sql");
        Files.writeString(script, "\\set id random(1, " + GUILDS + ")\n"
                + "select plan, status from license where guild_id = (100000000000000000 + :id)::text;\n");
        Pgbench.run(stack, work, "licensing", "-M", "prepared", "-c", "8", "-j", "2", "-R", Integer.toString(rate), "-T",
                Integer.toString(seconds), "-l", "--log-prefix=" + work.resolve("log"), "-f", script.toString());
        Latencies latencies = new Latencies();
        try (var logs = Files.list(work)) {
            for (Path log : logs.filter(p -> p.getFileName().toString().startsWith("log")).toList()) {
                // client transaction latency_us script epoch epoch_us [schedule_lag_us]: latency plus lag, as the HTTP side counts it
                for (String line : Files.readAllLines(log)) {
                    String[] f = line.trim().split("\\s+");
                    long lag = f.length > 6 ? Long.parseLong(f[6]) : 0;
                    latencies.recordNanos((Long.parseLong(f[2]) + lag) * 1000);
                }
            }
        }
        return latencies;
    }
}
