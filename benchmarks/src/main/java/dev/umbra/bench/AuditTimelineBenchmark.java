package dev.umbra.bench;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.testing.Tokens;
import io.vertx.core.http.HttpMethod;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

/**
 * Load driver, not a test: a guild's last 100 events ({@code GET /audit/guilds/{id}/timeline?order=desc&limit=100})
 * from an audit log of millions of rows. The rows are written straight into audit-service's tables (the
 * log and the attributions, a year of month partitions): one large guild holds a tenth of them, the rest
 * spread over {@value #SMALL_GUILDS} guilds. Then open loop at a fixed rate, once for the large guild and
 * once for the small ones. Run alone with
 * {@code ./bench audit-timeline}
 * ({@code -Dbench.audit-rows}); {@code ./bench} runs it within the whole suite.
 */
class AuditTimelineBenchmark {

    static final int SMALL_GUILDS = 20_000;
    static final String LARGE_GUILD = "900000000000000001";
    private static final long SMALL_GUILD_BASE = 100000000000000000L;
    /** Each share of the rows is inserted on its own connection, so that the two cores both write. */
    private static final int SEED_CONNECTIONS = 2;

    /** Rows stored, how long storing them took, and the two timelines' latencies. */
    record Result(long rows, long largeGuildRows, Duration seed, int rate, int seconds, Latencies large, Latencies small,
                  double serverMeanMicros) {

        String report() {
            return String.format("""
                    audit timeline: %,d rows (the large guild %,d, %,d guilds ~%d each), seeded in %.0f s; %d req/s for %d s each
                                                                   p50         p90         p99       p99.9         max
                      last 100 events of the large guild        %s
                      last 100 events of a small guild          %s
                      server time of the endpoint (Micrometer timer, both runs): mean %.0f µs
                    """, rows, largeGuildRows, SMALL_GUILDS, (rows - largeGuildRows) / SMALL_GUILDS, seed.toMillis() / 1000.0, rate, seconds,
                    large.row(), small.row(), serverMeanMicros);
        }
    }

    void run() throws Exception {
        Devstack stack = BenchStack.shared();
        try (LocalSystem system = LocalSystem.start(stack, Benchmarks.repoRoot(), false, List.of("audit"))) {
            String report = measure(stack, system, Integer.getInteger("bench.audit-rows", 2_000_000), Integer.getInteger("bench.rate", 100),
                    Integer.getInteger("bench.seconds", 10)).report();
            System.out.println(report);
            Benchmarks.writeResult("audit-timeline.txt", report);
        }
    }

    static Result measure(Devstack stack, LocalSystem system, int rows, int rate, int seconds) throws Exception {
        long largeGuildRows = rows / 10;
        long started = System.nanoTime();
        seed(stack, rows, largeGuildRows);
        Duration seed = Duration.ofNanos(System.nanoTime() - started);
        String url = system.url("audit");
        String management = system.managementUrl("audit");
        String token = Tokens.admin();
        // warm-up: the endpoint's first calls plan the query and load the indexes' upper pages
        OpenLoop.drive(url, rate, rate * 3, 0, new Latencies(), i -> timeline(token, i % 2 == 0 ? LARGE_GUILD : smallGuild(i)));
        double[] before = EntitlementReadBenchmark.serverTimer(management, "/audit/guilds/{guildId}/timeline");
        Latencies large = new Latencies();
        OpenLoop.drive(url, rate, rate * seconds, 0, large, i -> timeline(token, LARGE_GUILD));
        Latencies small = new Latencies();
        OpenLoop.drive(url, rate, rate * seconds, 0, small, i -> timeline(token, smallGuild(i)));
        double[] after = EntitlementReadBenchmark.serverTimer(management, "/audit/guilds/{guildId}/timeline");
        double count = after[0] - before[0];
        double serverMean = count == 0 ? Double.NaN : (after[1] - before[1]) / count * 1e6;
        return new Result(rows, largeGuildRows, seed, rate, seconds, large, small, serverMean);
    }

    private static OpenLoop.Call timeline(String token, String guildId) {
        return new OpenLoop.Call(HttpMethod.GET, "/audit/guilds/" + guildId + "/timeline?order=desc&limit=100", token, null, 200);
    }

    private static String smallGuild(int i) {
        return Long.toString(SMALL_GUILD_BASE + 1 + (i * 7919L) % SMALL_GUILDS);
    }

    /**
     * A year of events, occurred_at uniform over it, each stored with its attribution the way ingest
     * stores them (recorded, processed and known at the time it occurred). Month partitions for the year
     * are created first, as the retention job would have over that year.
     */
    private static void seed(Devstack stack, int rows, long largeGuildRows) throws Exception {
        try (Connection connection = stack.postgres().connect("audit"); Statement statement = connection.createStatement()) {
            statement.execute("select audit_create_partitions(now() - interval '12 months', 13)");
        }
        int share = rows / SEED_CONNECTIONS;
        CompletableFuture<?>[] inserts = IntStream.range(0, SEED_CONNECTIONS).mapToObj(part -> CompletableFuture.runAsync(() -> {
            long first = (long) part * share + 1;
            long last = part == SEED_CONNECTIONS - 1 ? rows : first + share - 1;
            try (Connection connection = stack.postgres().connect("audit"); Statement statement = connection.createStatement()) {
                statement.execute("with event as (select gen_random_uuid() id, now() - interval '365 days' * random() occurred, n, "
                        + "case when n <= " + largeGuildRows + " then '" + LARGE_GUILD + "' else (" + SMALL_GUILD_BASE + " + 1 + n % "
                        + SMALL_GUILDS + ")::text end guild from generate_series(" + first + ", " + last + ") n), "
                        + "logged as (insert into audit_log (event_id, occurred_at, recorded_at, processed_at, aggregate_type, aggregate_id, "
                        + "event_type, schema_version, sequence, payload, masked_fields, source_topic, source_partition, source_offset) "
                        + "select id, occurred, occurred, occurred, 'guild', guild, case n % 3 when 0 then 'MemberJoined' when 1 then 'RoleCreated' "
                        + "else 'ChannelUpdated' end, 1, n, jsonb_build_object('guildId', guild, 'actorUserId', '223456789012345678', "
                        + "'at', occurred), '[]'::jsonb, 'umbra.guild', (n % 3)::int, n from event returning event_id, occurred_at, aggregate_id) "
                        + "insert into audit_guild (event_id, occurred_at, guild_id, attributed_at, known_at) "
                        + "select event_id, occurred_at, aggregate_id, occurred_at, occurred_at from logged");
            } catch (Exception e) {
                throw new IllegalStateException("seeding the audit log failed", e);
            }
        })).toArray(CompletableFuture[]::new);
        CompletableFuture.allOf(inserts).join();
        try (Connection connection = stack.postgres().connect("audit"); Statement statement = connection.createStatement()) {
            statement.execute("analyze audit_log");
            statement.execute("analyze audit_guild");
        }
    }
}
