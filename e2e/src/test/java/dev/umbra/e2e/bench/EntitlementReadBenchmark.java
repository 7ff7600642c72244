package dev.umbra.e2e.bench;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.testing.Tokens;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Load driver, not a test. Open loop at a fixed rate (a Vert.x client on one event loop) (latency counted from when each request was
 * due, so a stall is not hidden): {@code GET /guilds/{id}/entitlements} against the packaged
 * licensing-service, then the raw PostgreSQL point select of the same row with pgbench at the same
 * rate as the reference. Run with
 * {@code ./mvnw -pl e2e -am verify -Dit.test=EntitlementReadBenchmark -Dsurefire.failIfNoSpecifiedTests=false -DfailIfNoTests=false}
 * ({@code -Dbench.rate}, {@code -Dbench.seconds}); the report goes to {@code e2e/target/benchmarks/entitlements.txt}.
 */
class EntitlementReadBenchmark {

    private static final int GUILDS = 10_000;

    @Test
    void run() throws Exception {
        int rate = Integer.getInteger("bench.rate", 2000);
        int seconds = Integer.getInteger("bench.seconds", 30);
        Devstack stack = Devstack.shared();
        try (LocalSystem system = LocalSystem.start(stack, Path.of(System.getProperty("umbra.repo.root", "..")), false,
                List.of("licensing"))) {
            seed(stack);
            String url = system.url("licensing");
            String management = system.managementUrl("licensing");
            String token = Tokens.bot();
            drive(url, token, rate, 10);
            double[] before = serverTimer(management);
            double[] http = drive(url, token, rate, seconds);
            double[] after = serverTimer(management);
            double count = after[0] - before[0];
            String serverTime = String.format("%d requests, mean %.0f µs", (long) count, count == 0 ? 0 : (after[1] - before[1]) / count * 1e6);
            double[] sql = pgbench(stack, rate, seconds);
            String report = String.format("""
                    entitlement reads: %d guilds, %d req/s for %d s after 10 s warm-up
                                                          p50       p90       p99      p99.9      max     errors
                      GET /guilds/{id}/entitlements   %s
                      raw PostgreSQL point select     %s
                      server time of the endpoint (Micrometer timer, measured run): %s
                    """, GUILDS, rate, seconds, row(http), row(sql), serverTime);
            System.out.println(report);
            Path out = Path.of("target/benchmarks/entitlements.txt");
            Files.createDirectories(out.getParent());
            Files.writeString(out, report);
        }
    }

    /** Count and total seconds of the service's own timer for the endpoint: the server's share of the latency. */
    private static double[] serverTimer(String managementUrl) throws Exception {
        String metrics = java.net.http.HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(managementUrl + "/q/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        double[] countAndSum = new double[2];
        metrics.lines().filter(l -> l.contains("entitlements") && l.contains("status=\"200\"")).forEach(line -> {
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

    /** Latencies in ms, NaN for a failed request. One Vert.x event loop sends every request that is due, each millisecond. */
    private static double[] drive(String url, String token, int rate, int seconds) throws InterruptedException {
        int total = rate * seconds;
        double[] latencies = new double[total];
        URI base = URI.create(url);
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
        HttpClient http = vertx.createHttpClient(new HttpClientOptions().setDefaultHost(base.getHost()).setDefaultPort(base.getPort())
                .setKeepAlive(true), new PoolOptions().setHttp1MaxSize(64));
        CountDownLatch done = new CountDownLatch(total);
        long start = System.nanoTime();
        long intervalNanos = 1_000_000_000L / rate;
        int[] next = {0};
        vertx.setPeriodic(1, timer -> {
            long now = System.nanoTime();
            while (next[0] < total && start + next[0] * intervalNanos <= now) {
                int i = next[0]++;
                long due = start + i * intervalNanos;
                String guildId = Long.toString(100000000000000000L + 1 + (i % GUILDS));
                http.request(HttpMethod.GET, "/guilds/" + guildId + "/entitlements")
                        .compose(request -> request.putHeader("Authorization", "Bearer " + token).send())
                        .compose(response -> response.body().map(body -> response.statusCode()))
                        .onComplete(result -> {
                            latencies[i] = result.succeeded() && result.result() == 200 ? (System.nanoTime() - due) / 1e6 : Double.NaN;
                            done.countDown();
                        });
            }
            if (next[0] >= total) {
                vertx.cancelTimer(timer);
            }
        });
        boolean finished = done.await(seconds + 30L, TimeUnit.SECONDS);
        vertx.close();
        if (!finished) {
            throw new IllegalStateException("requests still open 30 s after the run");
        }
        return latencies;
    }

    private static double[] pgbench(Devstack stack, int rate, int seconds) throws Exception {
        Path work = Files.createTempDirectory("pgbench");
        Path script = work.resolve("select.sql");
        Files.writeString(script, "\\set id random(1, " + GUILDS + ")\n"
                + "select plan, status from license where guild_id = (100000000000000000 + :id)::text;\n");
        Path pgbench = Path.of(System.getenv().getOrDefault("UMBRA_PG_BIN", "/usr/lib/postgresql/15/bin"), "pgbench");
        ProcessBuilder builder = new ProcessBuilder(pgbench.toString(), "-h", stack.postgres().host(), "-p",
                Integer.toString(stack.postgres().port()), "-U", stack.postgres().user(), "-n", "-M", "prepared", "-c", "8", "-j", "2",
                "-R", Integer.toString(rate), "-T", Integer.toString(seconds), "-l", "--log-prefix=" + work.resolve("log"),
                "-f", script.toString(), "licensing").directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(work.resolve("pgbench.out").toFile());
        builder.environment().put("PGPASSWORD", stack.postgres().password());
        if (builder.start().waitFor() != 0) {
            throw new IllegalStateException("pgbench failed: " + Files.readString(work.resolve("pgbench.out")));
        }
        try (var logs = Files.list(work)) {
            return logs.filter(p -> p.getFileName().toString().startsWith("log"))
                    .flatMap(p -> {
                        try {
                            return Files.readAllLines(p).stream();
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    // client transaction latency_us script epoch epoch_us [schedule_lag_us]: latency plus lag, as the HTTP side counts it
                    .mapToDouble(line -> {
                        String[] f = line.trim().split("\\s+");
                        double lag = f.length > 6 ? Double.parseDouble(f[6]) : 0;
                        return (Double.parseDouble(f[2]) + lag) / 1000.0;
                    })
                    .toArray();
        }
    }

    private static String row(double[] values) {
        long errors = Arrays.stream(values).filter(Double::isNaN).count();
        double[] sorted = Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (sorted.length == 0) {
            return "no data";
        }
        return String.format("%7.2f ms %7.2f ms %7.2f ms %7.2f ms %7.1f ms %6d", at(sorted, 0.5), at(sorted, 0.9), at(sorted, 0.99),
                at(sorted, 0.999), sorted[sorted.length - 1], errors);
    }

    private static double at(double[] sorted, double quantile) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(quantile * sorted.length) - 1)];
    }
}
