package dev.umbra.bench;

import dev.umbra.devstack.Devstack;
import dev.umbra.testing.Snowflakes;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The install endpoint at saturation (closed loop: each connection sends its next install when the
 * previous one answered) against pgbench running the statements one install runs on the same
 * PostgreSQL server: what the service keeps of what the database can do. pgbench runs them in a copy
 * of the guild tables' definitions: in guild's own database its thousands of outbox rows per second
 * would be streamed to Kafka and land on the consumers as real installs, a backlog the rest of the
 * suite would measure.
 */
final class WritePath {

    /**
     * What one {@code POST /guilds/{id}/installation} of a new guild runs (GuildService.install and
     * OutboxWriter): the guild looked up by id, inserted, the aggregate's sequence and the outbox row in
     * one statement (whose trigger deletes the row), commit. The payload is a BotInstalled's.
     */
    static final String INSTALL_SCRIPT = """
            \\set id random(100000000000000000, 999999999999999999)
            \\set user random(100000000000000000, 999999999999999999)
            begin;
            select guild_id, installed_at, installer_user_id, owner_id, status, updated_at, version from guild where guild_id = :id::text;
            insert into guild (guild_id, installed_at, installer_user_id, owner_id, status, updated_at, version) values (:id::text, now(), :user::text, :user::text, 'INSTALLED', now(), 0);
            with next as (insert into aggregate_sequence as s (aggregate_type, aggregate_id, last_sequence) values ('guild', :id::text, 1) on conflict (aggregate_type, aggregate_id) do update set last_sequence = s.last_sequence + 1 returning last_sequence) insert into outbox_event (id, aggregatetype, aggregateid, type, "timestamp", payload, schema_version, tracingspancontext, sequence) select gen_random_uuid(), 'guild', :id::text, 'BotInstalled', now(), cast(cast(jsonb_build_object('guild_id', :id::text, 'installer_user_id', :user::text) as text) as jsonb), 1, null, next.last_sequence from next returning sequence;
            commit;
            """;

    record Result(int connections, int seconds, double installsPerSecond, Latencies http, int pgbenchClients, double pgbenchTps) {

        double ratio() {
            return installsPerSecond / pgbenchTps;
        }

        String report() {
            return String.format("""
                    write path: POST installation, %d connections closed loop, %d s: %.0f installs/s (201s); pgbench -M prepared -c %d, same statements: %.0f tps; ratio %.0f %%
                      install latency %s
                    """, connections, seconds, installsPerSecond, pgbenchClients, pgbenchTps, ratio() * 100, http.row());
        }
    }

    private WritePath() {
    }

    static Result measure(Devstack stack, String guildUrl, String token, int connections, int warmupSeconds, int seconds, int pgbenchClients)
            throws Exception {
        Latencies http = new Latencies();
        double installs = closedLoop(guildUrl, token, connections, warmupSeconds, seconds, http);
        double tps = pgbench(stack, pgbenchClients, seconds);
        return new Result(connections, seconds, installs, http, pgbenchClients, tps);
    }

    /** Installs per second answered 201 within the measured window, after {@code warmupSeconds}. */
    private static double closedLoop(String baseUrl, String token, int connections, int warmupSeconds, int seconds, Latencies latencies)
            throws InterruptedException {
        URI base = URI.create(baseUrl);
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
        HttpClient http = vertx.createHttpClient(new HttpClientOptions().setDefaultHost(base.getHost()).setDefaultPort(base.getPort())
                .setKeepAlive(true), new PoolOptions().setHttp1MaxSize(connections));
        long start = System.nanoTime();
        long measureFrom = start + TimeUnit.SECONDS.toNanos(warmupSeconds);
        long end = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
        AtomicLong created = new AtomicLong();
        CountDownLatch stopped = new CountDownLatch(connections);
        for (int c = 0; c < connections; c++) {
            vertx.runOnContext(ignored -> next(http, token, measureFrom, end, created, latencies, stopped));
        }
        boolean finished = stopped.await(warmupSeconds + seconds + 60L, TimeUnit.SECONDS);
        vertx.close().toCompletionStage().toCompletableFuture().join();
        if (!finished) {
            throw new IllegalStateException("install requests still open 60 s after the run");
        }
        return created.get() / (double) seconds;
    }

    private static void next(HttpClient http, String token, long measureFrom, long end, AtomicLong created, Latencies latencies,
                             CountDownLatch stopped) {
        long sent = System.nanoTime();
        if (sent >= end) {
            stopped.countDown();
            return;
        }
        OpenLoop.send(http, new OpenLoop.Call(HttpMethod.POST, "/guilds/" + Snowflakes.random() + "/installation", token,
                "{\"installerUserId\":\"223456789012345678\"}", 201)).onComplete(result -> {
            long answered = System.nanoTime();
            if (sent >= measureFrom && answered <= end) {
                if (result.succeeded() && result.result() == 201) {
                    created.incrementAndGet();
                    latencies.recordNanos(answered - sent);
                } else {
                    latencies.error(result.succeeded() ? "HTTP " + result.result() : result.cause().getClass().getSimpleName());
                }
            }
            next(http, token, measureFrom, end, created, latencies, stopped);
        });
    }

    private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)");

    private static double pgbench(Devstack stack, int clients, int seconds) throws Exception {
        Path work = Files.createTempDirectory("pgbench-install");
        Pgbench.copySchema(stack, work, "guild", "bench_write_path", "guild", "outbox_event", "aggregate_sequence");
        Path script = work.resolve("install.sql");
        Files.writeString(script, INSTALL_SCRIPT);
        String out = Pgbench.run(stack, work, "bench_write_path", "-M", "prepared", "-c", Integer.toString(clients), "-j", "2", "-T",
                Integer.toString(seconds), "-f", script.toString());
        Matcher tps = TPS.matcher(out);
        if (!tps.find()) {
            throw new IllegalStateException("no tps in pgbench's output: " + out);
        }
        return Double.parseDouble(tps.group(1));
    }
}
