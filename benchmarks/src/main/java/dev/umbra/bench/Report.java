package dev.umbra.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** The generated part of docs/benchmarks.md: the run's circumstances, one table per part, the targets beside the figures. */
record Report(Instant date, String machine, double loadBefore, Map<String, double[]> loads, Map<String, String> versions,
              Map<String, String> postgres, Duration devstackStart, Duration servicesStart, Duration suite) {

    /** Above this 1-minute load average before the run, something else was using the two cores: the figures do not count. */
    private static final double QUIET = 4.0;

    String render(SystemBenchmark settings, List<EventChainBenchmark.Result> chain, WritePath.Result write,
                  EntitlementReadBenchmark.Result reads, AuditTimelineBenchmark.Result timeline, List<Drain.Result> drains, Map<String, Double> idle, Map<String, Double> loaded,
                  Map<String, Duration> startUp) {
        StringBuilder md = new StringBuilder();
        md.append("## Latest run of `./bench` (generated: do not edit by hand)\n\n");
        if (loadBefore > QUIET) {
            md.append(f("**The machine was busy before this run (load average %.1f > %.0f): these figures are not figures.**%n%n", loadBefore,
                    QUIET));
        }
        md.append("| | |\n|---|---|\n");
        md.append(f("| date | %s |%n", SystemBenchmark.utc(date)));
        md.append(f("| machine | %s |%n", machine));
        md.append(f("| load average (1 min) before the run | %.2f |%n", loadBefore));
        versions.forEach((name, version) -> md.append(f("| %s | %s |%n", name, version)));
        md.append(f("| PostgreSQL settings | %s |%n", postgres.entrySet().stream().map(e -> e.getKey() + " = " + e.getValue())
                .collect(Collectors.joining(", "))));
        md.append("| services | the packaged jars (`quarkus-run.jar`), `-Xmx256m -XX:TieredStopAtLevel=1` (as the images run them); all on the same cores as devstack and the driver |\n");
        md.append(f("| devstack start | %.1f s |%n", devstackStart.toMillis() / 1000.0));
        md.append(f("| five services started together until all ready | %.1f s |%n", servicesStart.toMillis() / 1000.0));
        md.append(f("| warm-up before the first measurement (not counted) | %d min %02d s: rounds of %d s at %s |%n",
                settings.warmupTook().toMinutes(), settings.warmupTook().toSecondsPart(), settings.warmupSeconds(),
                String.join(", ", settings.warmupRounds())));
        md.append(f("| whole suite (without the build) | %d min %02d s |%n%n", suite.toMinutes(), suite.toSecondsPart()));

        md.append(f("### End-to-end latency (open loop, %d s per rate after %d s warm-up, latency from each request's due time)%n%n",
                settings.chainSeconds(), settings.chainWarmup()));
        md.append("| rate (achieved) | measured | p50 | p90 | p99 | max | errors/missing | load avg |\n|---|---|---|---|---|---|---|---|\n");
        for (EventChainBenchmark.Result r : chain) {
            String rate = f("%d/s (%.0f/s)", r.rate(), r.achievedRate());
            String load = load("chain " + r.rate());
            row(md, rate, "POST installation (HTTP)", r.http(), load);
            row(md, "", "request → BotInstalled on Kafka", r.toBotInstalled(), "");
            row(md, "", "request → LicenseGranted on Kafka", r.toLicenseGranted(), "");
            row(md, "", "recorded_at → processed_at (licensing inbox)", r.recordedToProcessed(), "");
            md.append(f("| | last LicenseGranted after the last request | %d ms | | | | | |%n", r.catchUp().toMillis()));
            if (r.http().errors() > 0) {
                md.append(f("| | failed installs | %s | | | | | |%n", r.http().errorCauses()));
            }
        }
        if (!settings.skippedRates().isEmpty()) {
            md.append(f("%nNot run: %s/s, because %d/s already did not hold (rate not kept, a license missing, or the last one more than 5 s late).%n",
                    settings.skippedRates().stream().map(String::valueOf).collect(Collectors.joining(", ")), chain.get(chain.size() - 1).rate()));
        }
        md.append("\n![HTTP](bench/latency-http.svg)\n![request to LicenseGranted](bench/latency-request-to-license.svg)\n"
                + "![recorded_at to processed_at](bench/latency-recorded-to-processed.svg)\n\n");

        md.append(f("### Write path (%d connections, closed loop, %d s after 3 s warm-up; pgbench the same statements, %d clients, %d s)%n%n",
                write.connections(), write.seconds(), write.pgbenchClients(), write.seconds()));
        md.append("| | throughput | p50 | p99 | max | errors | load avg |\n|---|---|---|---|---|---|---|\n");
        md.append(f("| POST /guilds/{id}/installation (201s; guild's consumers stopped: licensing, audit, billing, recovery; guild and Debezium running) | %.0f/s | %s | %s | %s | %d | %s |%n",
                write.installsPerSecond(), ms(write.http().millis(50)), ms(write.http().millis(99)), ms(write.http().maxMillis()),
                write.http().errors(), load("write")));
        if (write.http().errors() > 0) {
            md.append(f("| failed installs | %s | | | | | |%n", write.http().errorCauses()));
        }
        md.append(f("| pgbench `-M prepared -c %d`, one install's statements, in a copy of the guild tables on the same server | %.0f tps | | | | | |%n", write.pgbenchClients(),
                write.pgbenchTps()));
        md.append(f("| ratio | **%.0f %%** | | | | | |%n%n", write.ratio() * 100));

        md.append(f("### Entitlement reads (open loop %d req/s, %d s after warm-up rounds of 5 s: %s)%n%n", reads.rate(), reads.seconds(),
                String.join(", ", reads.warmup())));
        md.append("| | p50 | p90 | p99 | p99.9 | max | errors | load avg |\n|---|---|---|---|---|---|---|---|\n");
        md.append(f("| GET /guilds/{id}/entitlements (achieved %.0f/s; server's own mean %.0f µs) | %s | %s | %s | %s | %s | %d | %s |%n",
                reads.achievedRate(), reads.serverMeanMicros(), ms(reads.http().millis(50)), ms(reads.http().millis(90)),
                ms(reads.http().millis(99)), ms(reads.http().millis(99.9)), ms(reads.http().maxMillis()), reads.http().errors(), load("reads")));
        md.append(f("| raw point select (pgbench -M prepared -R %d, 8 clients) | %s | %s | %s | %s | %s | %d | |%n%n", reads.rate(),
                ms(reads.sql().millis(50)), ms(reads.sql().millis(90)), ms(reads.sql().millis(99)), ms(reads.sql().millis(99.9)),
                ms(reads.sql().maxMillis()), reads.sql().errors()));
        md.append("![entitlement reads](bench/entitlement-reads.svg)\n\n");

        md.append(f("### A guild's audit timeline over %,d stored events (open loop %d req/s, %d s each after 3 s warm-up)%n%n", timeline.rows(),
                timeline.rate(), timeline.seconds()));
        md.append(f("A year of events written straight into audit-service's tables (%.0f s): one large guild with %,d of them, the rest "
                + "spread over %,d guilds (about %,d each). `GET /audit/guilds/{id}/timeline?order=desc&limit=100`, server's own mean %.0f µs.%n%n",
                timeline.seed().toMillis() / 1000.0, timeline.largeGuildRows(), AuditTimelineBenchmark.SMALL_GUILDS,
                (timeline.rows() - timeline.largeGuildRows()) / AuditTimelineBenchmark.SMALL_GUILDS, timeline.serverMeanMicros()));
        md.append("| last 100 events of | p50 | p90 | p99 | p99.9 | max | errors | load avg |\n|---|---|---|---|---|---|---|---|\n");
        timelineRow(md, "the large guild", timeline.large(), load("audit timeline"));
        timelineRow(md, "a small guild (a different one each request)", timeline.small(), "");
        md.append("\n");

        md.append(f("### Backlog drain (the write path's installs plus %,d BotInstalled produced to umbra.guild, guild's consumers stopped; billing and recovery started again after it)%n%n",
                settings.drainEvents()));
        md.append("| consumer | backlog at launch | launch → lag 0 (start-up, group join, offsets committed every 5 s) | events claimed | first → last claim | events/s claimed | load avg |\n|---|---|---|---|---|---|---|\n");
        for (Drain.Result d : drains) {
            md.append(f("| %s | %,d | %s | %,d | %.2f s | %,.0f | %s |%n", d.service(), d.backlog(),
                    d.drained() ? f("%.1f s", d.launchToEmpty().toMillis() / 1000.0) : "**not drained** in " + d.launchToEmpty().toSeconds() + " s",
                    d.claimed(), d.claiming().toMillis() / 1000.0, d.eventsPerSecond(), load("drain")));
        }
        md.append("\n![drain](bench/drain.svg)\n\n");

        md.append("### Memory (VmRSS) and start-up\n\n| process | idle, after start | after the load | start-up alone, launch → first ready answer |\n"
                + "|---|---|---|---|\n");
        idle.forEach((name, mib) -> md.append(f("| %s | %.0f MiB | %s | %s |%n", name, mib,
                loaded.containsKey(name) ? f("%.0f MiB", loaded.get(name)) : "?",
                startUp.containsKey(name) ? f("%.1f s", startUp.get(name).toMillis() / 1000.0) : "")));
        md.append(f("%nPostgreSQL's figure sums its processes (shared buffers counted in each backend that touched them). Start-up load avg: %s.%n%n",
                load("start-up")));

        md.append("### Targets of the issue\n\n| target | figure | |\n|---|---|---|\n");
        chain.stream().filter(r -> r.rate() == 500).findFirst().ifPresent(r -> md.append(f(
                "| p99 ≤ 50 ms at 500 events/s, outbox commit → consumer commit | recorded_at → processed_at p99 %s (request → LicenseGranted p99 %s) | %s |%n",
                ms(r.recordedToProcessed().millis(99)), ms(r.toLicenseGranted().millis(99)), met(r.recordedToProcessed().millis(99) <= 50))));
        if (settings.skippedRates().contains(500)) {
            md.append(f("| p99 ≤ 50 ms at 500 events/s, outbox commit → consumer commit | not run: %d/s already did not hold | **missed** |%n",
                    chain.get(chain.size() - 1).rate()));
        }
        chain.stream().filter(r -> r.rate() == 1000).findFirst().ifPresent(r -> md.append(f(
                "| 1,000 events/s sustained without growing lag | achieved %.0f/s, %d missing, last license %d ms after the last request | %s |%n",
                r.achievedRate(), r.missing(), r.catchUp().toMillis(),
                met(r.achievedRate() >= 990 && r.missing() == 0 && r.catchUp().toMillis() <= 2000))));
        if (settings.skippedRates().contains(1000)) {
            md.append(f("| 1,000 events/s sustained without growing lag | not run: %d/s already did not hold | **missed** |%n",
                    chain.get(chain.size() - 1).rate()));
        }
        for (Drain.Result d : drains) {
            md.append(f("| drain ≥ 5,000 events/s (%s) | %,.0f events/s | %s |%n", d.service(), d.eventsPerSecond(),
                    met(d.drained() && d.eventsPerSecond() >= 5000)));
        }
        md.append(f("| write path ≥ 50 %% of pgbench | %.0f %% | %s |%n", write.ratio() * 100, met(write.ratio() >= 0.5)));
        md.append(f("| entitlement reads p99 ≤ 5 ms at 2,000/s | %s | %s |%n", ms(reads.http().millis(99)),
                met(reads.http().millis(99) <= 5 && reads.rate() >= 2000)));
        md.append(f("| a guild's last 100 audit events in milliseconds with millions of rows | %,d rows: p99 %s (large guild), %s (small) | %s |%n",
                timeline.rows(), ms(timeline.large().millis(99)), ms(timeline.small().millis(99)),
                met(timeline.rows() >= 1_000_000 && timeline.large().errors() == 0 && timeline.small().errors() == 0
                        && timeline.large().millis(99) < 100 && timeline.small().millis(99) < 100)));
        md.append("| our p99 ≥ 20× lower than the baseline polling relay (issue item 2) | `./bench relay`, its own section (not in the suite: 4 min more) | see there |\n");
        md.append("| money path (item 7): renewals through a slow and faulty gateway, 1,000 uncertain payments reconciled | `./bench money`, its own section (not in the suite: about 6 min more) | see there |\n");
        return md.toString();
    }

    private static void timelineRow(StringBuilder md, String what, Latencies l, String load) {
        md.append(f("| %s | %s | %s | %s | %s | %s | %d | %s |%n", what, ms(l.millis(50)), ms(l.millis(90)), ms(l.millis(99)),
                ms(l.millis(99.9)), ms(l.maxMillis()), l.errors(), load));
    }

    private static void row(StringBuilder md, String rate, String what, Latencies l, String load) {
        md.append(f("| %s | %s | %s | %s | %s | %s | %d | %s |%n", rate, what, ms(l.millis(50)), ms(l.millis(90)), ms(l.millis(99)),
                ms(l.maxMillis()), l.errors(), load));
    }

    private String load(String part) {
        double[] at = loads.get(part);
        return at == null ? "" : f("%.1f → %.1f", at[0], at[1]);
    }

    private static String met(boolean met) {
        return met ? "met" : "**missed**";
    }

    private static String ms(double millis) {
        return Latencies.ms(millis);
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
