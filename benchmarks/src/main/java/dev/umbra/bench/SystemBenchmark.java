package dev.umbra.bench;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.devstack.ServiceProcess;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * The benchmark suite in one run, {@code ./bench}: the five packaged services against devstack, then end-to-end latency at several rates,
 * the install write path against pgbench, entitlement reads against a raw select, a guild's audit
 * timeline over millions of stored events, the backlog drain
 * of the consumers, memory and start-up times. Rewrites the generated part of docs/benchmarks.md and
 * the plots in docs/bench/. Settings: {@code -Dbench.rates=100,500,1000}, {@code -Dbench.chain-seconds},
 * {@code -Dbench.warmup-seconds}, {@code -Dbench.warmup-budget}, {@code -Dbench.drain-events}, {@code -Dbench.write-seconds}, {@code -Dbench.read-rate}, {@code -Dbench.read-seconds}, {@code -Dbench.audit-rows}, {@code -Dbench.timeline-rate}.
 */
class SystemBenchmark {

    private static final String BEGIN = "<!-- bench:begin -->";
    private static final String END = "<!-- bench:end -->";

    private final int[] rates = Arrays.stream(System.getProperty("bench.rates", "100,500,1000").split(",")).mapToInt(Integer::parseInt)
            .toArray();
    private final int chainSeconds = Integer.getInteger("bench.chain-seconds", 10);
    private final int chainWarmup = Integer.getInteger("bench.chain-warmup", 3);
    private final int warmupSeconds = Integer.getInteger("bench.warmup-seconds", 30);
    private final int warmupBudget = Integer.getInteger("bench.warmup-budget", 300);
    private final int drainEvents = Integer.getInteger("bench.drain-events", 20_000);
    private final int drainPatience = Integer.getInteger("bench.drain-patience", 45);
    private final int writeConnections = 16;
    private final int writeSeconds = Integer.getInteger("bench.write-seconds", 10);
    private final int pgbenchClients = 4;
    private final int readRate = Integer.getInteger("bench.read-rate", 2000);
    private final int readSeconds = Integer.getInteger("bench.read-seconds", 15);
    private final int auditRows = Integer.getInteger("bench.audit-rows", 2_000_000);
    private final int timelineRate = Integer.getInteger("bench.timeline-rate", 100);
    /** The services that consume umbra.guild; licensing and audit are the ones whose drain is measured. */
    private static final String[] GUILD_CONSUMERS = {"licensing", "audit", "billing", "recovery"};

    /** Rates not run because a lower one already did not hold (a higher one would only queue for minutes). */
    private final List<Integer> skippedRates = new ArrayList<>();

    /** Each warm-up round's rate and whether it held, in order. */
    private final List<String> warmupRounds = new ArrayList<>();
    private Duration warmupTook = Duration.ZERO;

    /** The 1-minute load average when each part began and ended. */
    private final Map<String, double[]> loads = new LinkedHashMap<>();

    /**
     * The 1-minute load average once the build that ran before this test (three modules at a time) has left
     * the machine quiet: it waits up to two minutes for it to fall to the number of processors.
     */
    private static double settledLoad() throws InterruptedException {
        int processors = Runtime.getRuntime().availableProcessors();
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        double load = Footprint.load();
        while (load > processors && System.nanoTime() < deadline) {
            System.out.printf("bench: load average %.1f, waiting for it to fall to %d%n", load, processors);
            Thread.sleep(10_000);
            load = Footprint.load();
        }
        return load;
    }

    void run() throws Exception {
        // the services as they ship (C1 only, as the images run them), plus whatever the run asks for
        System.setProperty("umbra.service.jvm-options", System.getProperty("bench.service.jvm-options", ""));
        Path repoRoot = Benchmarks.repoRoot();
        Instant date = Instant.now();
        long suiteStart = System.nanoTime();
        double loadBefore = settledLoad();
        Devstack stack = BenchStack.shared();
        long systemStart = System.nanoTime();
        try (LocalSystem system = LocalSystem.start(stack, repoRoot, false, List.of());
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers()))) {
            Duration allFiveStarted = Duration.ofNanos(System.nanoTime() - systemStart);
            Map<String, String> versions = Footprint.versions(stack, repoRoot);
            Map<String, String> postgres = Footprint.postgresSettings(stack);
            // the services just started together: let their JIT and start-up work settle before anything is measured
            Thread.sleep(Integer.getInteger("bench.settle-seconds", 20) * 1000L);
            Map<String, Double> idle = Footprint.residentMiB(system);
            begin("warm-up");
            warmUp(stack, system);
            end("warm-up");

            List<EventChainBenchmark.Result> chain = new ArrayList<>();
            for (int rate : rates) {
                if (!chain.isEmpty() && !chain.get(chain.size() - 1).held()) {
                    skippedRates.add(rate);
                    continue;
                }
                settle(admin);
                begin("chain " + rate);
                chain.add(EventChainBenchmark.measure(stack, system, rate, chainSeconds, chainWarmup));
                end("chain " + rate);
                System.out.println(chain.get(chain.size() - 1).report());
            }
            settle(admin);
            begin("reads");
            EntitlementReadBenchmark.Result reads = EntitlementReadBenchmark.measure(stack, system, readRate, readSeconds, 5);
            end("reads");
            System.out.println(reads.report());
            settle(admin);
            begin("audit timeline");
            AuditTimelineBenchmark.Result timeline = AuditTimelineBenchmark.measure(stack, system, auditRows, timelineRate, 10);
            end("audit timeline");
            System.out.println(timeline.report());
            // every consumer of guild's events paused for the write path, as the issue asks (pgbench's rows reach no
            // consumer either); its installs start the drain's backlog
            settle(admin);
            system.stop(GUILD_CONSUMERS);
            begin("write");
            WritePath.Result write = WritePath.measure(stack, system.url("guild"), Tokens.bot(), writeConnections, 3, writeSeconds,
                    pgbenchClients);
            end("write");
            System.out.println(write.report());
            begin("drain");
            List<Drain.Result> drains = drain(system, admin);
            end("drain");
            drains.forEach(d -> System.out.println(d.report()));
            system.restart("billing", "recovery");
            settle(admin);
            Map<String, Double> loaded = Footprint.residentMiB(system);
            begin("start-up");
            Map<String, Duration> startUp = startUp(system);
            end("start-up");

            Duration suite = Duration.ofNanos(System.nanoTime() - suiteStart);
            String section = new Report(date, Footprint.machine(), loadBefore, loads, versions, postgres, stack.startTime(), allFiveStarted,
                    suite).render(this, chain, write, reads, timeline, drains, idle, loaded, startUp);
            writePlots(repoRoot.resolve("docs/bench"), chain, reads, drains);
            rewrite(repoRoot.resolve("docs/benchmarks.md"), section);
            System.out.println(section);
        }
    }

    /**
     * Five cold JVMs spend their first minutes of load compiling (on two shared cores) and Hibernate
     * translating each query once, which no service in production meets at full rate. Rounds of
     * {@code warmupSeconds}, the rate doubling from 25/s up to the first measured rate, then that rate
     * again until a round holds or {@code warmupBudget} seconds have gone: the measurement starts warm,
     * and the report says how long that took. Measured, not counted.
     */
    private void warmUp(Devstack stack, LocalSystem system) throws Exception {
        int target = rates[0];
        int rate = Math.min(25, target);
        long deadline = System.nanoTime() + Duration.ofSeconds(warmupBudget).toNanos();
        long start = System.nanoTime();
        while (true) {
            EventChainBenchmark.Result round = EventChainBenchmark.measure(stack, system, rate, warmupSeconds, 0);
            System.out.println("warm-up, not counted: " + round.report());
            warmupRounds.add(String.format("%d/s %s", rate, round.held() ? "held" : "did not hold"));
            if (rate == target && round.held()) {
                break;
            }
            if (System.nanoTime() > deadline) {
                warmupRounds.add("budget of " + warmupBudget + " s spent");
                break;
            }
            rate = Math.min(rate * 2, target);
        }
        warmupTook = Duration.ofNanos(System.nanoTime() - start);
    }

    /**
     * With guild's consumers stopped (gracefully: they left their groups, no session to expire):
     * {@code drainEvents} BotInstalled records produced to umbra.guild as Debezium's outbox router
     * would, after the write path's installs; licensing started and drained, then audit (whose backlog
     * then also holds licensing's LicenseGranted events).
     */
    private List<Drain.Result> drain(LocalSystem system, Admin admin) throws Exception {
        List<BotInstalled> events = IntStream.range(0, drainEvents).mapToObj(i -> new BotInstalled(Snowflakes.random(), "223456789012345678"))
                .toList();
        OutboxRecords.publishAll(events, Instant.now());
        Duration patience = Duration.ofSeconds(drainPatience);
        List<Drain.Result> results = new ArrayList<>();
        results.add(Drain.measure(system, admin, "licensing", "licensing-service.umbra.guild",
                topic -> topic.equals("umbra.guild"), patience));
        results.add(Drain.measure(system, admin, "audit", "audit-service.all-topics", topic -> topic.matches("umbra[.][a-z_]+"), patience));
        return results;
    }

    /** Each service stopped and started alone: from the launch until its readiness check first answers 200 (polled every 50 ms). */
    private static Map<String, Duration> startUp(LocalSystem system) {
        Map<String, Duration> times = new LinkedHashMap<>();
        for (ServiceProcess service : system.services()) {
            String name = service.service().name();
            system.stop(name);
            long launched = System.nanoTime();
            system.restart(name);
            times.put(service.name(), Duration.ofNanos(System.nanoTime() - launched));
        }
        return times;
    }


    /**
     * Until every consumer group has caught up (at most a minute), then until the processors have been quiet for three
     * seconds in a row (at most another minute): a part measured while the last one's backlog is still being worked off
     * measures both, and a backlog is more than consumer lag (a service still answering queued requests, its outbox
     * still streamed, work queues such as Discord messages still being worked).
     */
    private static void settle(Admin admin) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        long lag;
        while ((lag = Drain.lagOfAllGroups(admin)) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(500);
        }
        if (lag > 0) {
            System.out.println("settle: still " + lag + " events behind after a minute; measuring anyway");
        }
        awaitQuietProcessors();
    }

    /** Quiet: under a quarter of the processors busy over each of three one-second windows in a row. */
    private static void awaitQuietProcessors() throws InterruptedException {
        int processors = Runtime.getRuntime().availableProcessors();
        double ticksPerSecond = 100; // /proc/stat counts USER_HZ, 100 a second on Linux
        long started = System.nanoTime();
        long deadline = started + Duration.ofSeconds(60).toNanos();
        int quietSeconds = 0;
        double busy = Double.NaN;
        while (quietSeconds < 3 && System.nanoTime() < deadline) {
            long before = Footprint.busyTicks();
            Thread.sleep(1000);
            busy = (Footprint.busyTicks() - before) / ticksPerSecond;
            quietSeconds = busy < processors / 4.0 ? quietSeconds + 1 : 0;
        }
        System.out.printf("settle: %s after %.0f s (%.2f processors busy in the last second)%n", quietSeconds >= 3 ? "quiet" : "still busy",
                (System.nanoTime() - started) / 1e9, busy);
    }

    private void begin(String part) {
        loads.put(part, new double[] {Footprint.load(), Double.NaN});
    }

    private void end(String part) {
        loads.get(part)[1] = Footprint.load();
    }

    private static void writePlots(Path dir, List<EventChainBenchmark.Result> chain, EntitlementReadBenchmark.Result reads,
                                   List<Drain.Result> drains) throws Exception {
        Files.createDirectories(dir);
        List<String> rates = chain.stream().map(r -> r.rate() + "/s").toList();
        List<String> percentiles = List.of("p50", "p90", "p99");
        double[] ps = {50, 90, 99};
        Map<String, java.util.function.Function<EventChainBenchmark.Result, Latencies>> measures = new LinkedHashMap<>();
        measures.put("latency-http.svg", EventChainBenchmark.Result::http);
        measures.put("latency-request-to-license.svg", EventChainBenchmark.Result::toLicenseGranted);
        measures.put("latency-recorded-to-processed.svg", EventChainBenchmark.Result::recordedToProcessed);
        Map<String, String> titles = Map.of("latency-http.svg", "POST installation (HTTP), by rate",
                "latency-request-to-license.svg", "request → LicenseGranted on Kafka, by rate",
                "latency-recorded-to-processed.svg", "recorded_at → processed_at (licensing inbox), by rate");
        for (var measure : measures.entrySet()) {
            double[][] values = new double[ps.length][chain.size()];
            for (int p = 0; p < ps.length; p++) {
                for (int r = 0; r < chain.size(); r++) {
                    values[p][r] = measure.getValue().apply(chain.get(r)).millis(ps[p]);
                }
            }
            Files.writeString(dir.resolve(measure.getKey()), Svg.bars(titles.get(measure.getKey()), "ms", rates, percentiles, values));
        }
        double[][] readValues = new double[ps.length][2];
        for (int p = 0; p < ps.length; p++) {
            readValues[p][0] = reads.http().millis(ps[p]);
            readValues[p][1] = reads.sql().millis(ps[p]);
        }
        Files.writeString(dir.resolve("entitlement-reads.svg"), Svg.bars("entitlement reads at " + reads.rate() + "/s", "ms",
                List.of("GET entitlements", "raw point select"), percentiles, readValues));
        Files.writeString(dir.resolve("drain.svg"), Svg.lines("backlog drain: consumer group lag after the service's launch",
                "seconds since launch", "events behind", drains.stream().map(d -> new Svg.Series(d.service(), d.curve())).toList()));
    }

    private static void rewrite(Path doc, String section) throws Exception {
        String text = Files.readString(doc);
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalStateException(doc + " has no " + BEGIN + " … " + END + " section to rewrite");
        }
        Files.writeString(doc, text.substring(0, begin + BEGIN.length()) + "\n" + section + text.substring(end));
    }

    int[] rates() {
        return rates;
    }

    List<Integer> skippedRates() {
        return skippedRates;
    }

    int chainSeconds() {
        return chainSeconds;
    }

    int chainWarmup() {
        return chainWarmup;
    }

    int warmupSeconds() {
        return warmupSeconds;
    }

    List<String> warmupRounds() {
        return warmupRounds;
    }

    Duration warmupTook() {
        return warmupTook;
    }

    int drainEvents() {
        return drainEvents;
    }

    static String utc(Instant instant) {
        return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'").withZone(ZoneOffset.UTC).format(instant);
    }
}
