package dev.umbra.bench;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.devstack.PaymentGatewaySandbox.Charge;
import dev.umbra.devstack.PaymentGatewaySandbox.Status;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The money path of billing-service, packaged, against devstack's payment gateway sandbox answering with
 * a log-normal latency: calls that act (issue a key, charge) median {@code bench.money.gateway-median}
 * 200 ms, p99 {@code bench.money.gateway-p99} 700 ms (the p99 billing's 1 s read timeout was sized for);
 * look-ups median {@code bench.money.lookup-median} 80 ms, p99 {@code bench.money.lookup-p99} 300 ms (under
 * the look-ups' 400 ms slow-call threshold and 500 ms timeout). Four phases on {@code bench.money.subscriptions}
 * subscriptions (1,000):
 * <ol>
 * <li>first charges: billing key and subscription per user through the API, {@code bench.money.clients}
 *     (16) clients in a closed loop;</li>
 * <li>renewals, healthy gateway: billing's clock moved past the paid period, every subscription renewed by
 *     the renewal scan and the workers of the {@code subscription-renewal} queue;</li>
 * <li>renewals, faulty gateway: the next period with {@code bench.money.fault-ratio} (0.4) of the gateway's
 *     answers a 500 — a first attempt succeeds 60 % of the time, as the retry policy assumes; a renewal whose
 *     charge the reconciliation job found never arrived goes to dunning, and the clock is moved a day for
 *     its retry;</li>
 * <li>reconciliation: the next period's charges are kept pending by the gateway, then taken with their
 *     callbacks lost, so billing holds every payment IN_PROGRESS without knowing it was paid; the clock is
 *     moved past {@code billing.reconciliation.settle-after} and the interval, and the job settles them.</li>
 * </ol>
 * Then the money is checked: per subscription, exactly one charge taken per period at the gateway and one
 * SUCCEEDED payment per period in billing, and both sums equal. The renewal scan runs every 5 s here
 * ({@code umbra.billing.renewals.scan-interval}; 1 min in production); every other setting is production's.
 * {@code ./bench money}.
 */
class MoneyPathBenchmark {

    private static final Pattern ID = Pattern.compile("\"id\" ?: ?\"([0-9a-f-]{36})\"");
    private static final Duration PATIENCE = Duration.ofMinutes(Integer.getInteger("bench.money.patience-minutes", 8));

    private final int subscriptions = Integer.getInteger("bench.money.subscriptions", 1_000);
    private final int clients = Integer.getInteger("bench.money.clients", 16);
    private final Duration median = Duration.parse(System.getProperty("bench.money.gateway-median", "PT0.2S"));
    private final Duration p99 = Duration.parse(System.getProperty("bench.money.gateway-p99", "PT0.7S"));
    private final Duration lookupMedian = Duration.parse(System.getProperty("bench.money.lookup-median", "PT0.08S"));
    private final Duration lookupP99 = Duration.parse(System.getProperty("bench.money.lookup-p99", "PT0.3S"));
    private final double faultRatio = Double.parseDouble(System.getProperty("bench.money.fault-ratio", "0.4"));
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicInteger resent = new AtomicInteger();

    /** How one period's renewals went: when they started, when 99 % and all were paid, and the gateway's calls for them. */
    record Renewals(String label, int period, int renewed, Duration toFirst, Duration to99, Duration toSettled, long chargeCalls,
                    long settledByReconciliation, long dunning, Duration dunningPaid) {

        double perSecond() {
            Duration bulk = to99.minus(toFirst);
            return bulk.toMillis() <= 0 ? Double.NaN : renewed * 0.99 / (bulk.toMillis() / 1000.0);
        }

        String row() {
            return String.format("  %-28s %7d %9.1f s %9.1f s %9.1f s %10.1f %12d %10d %8d (%.1f s)", label, renewed, toFirst.toMillis() / 1000.0,
                    to99.toMillis() / 1000.0, toSettled.toMillis() / 1000.0, perSecond(), chargeCalls, settledByReconciliation, dunning,
                    dunningPaid.toMillis() / 1000.0);
        }
    }

    void run() throws Exception {
        Devstack stack = BenchStack.shared();
        System.setProperty("umbra.service.jvm-options",
                ("-Dumbra.billing.renewals.scan-interval=PT5S " + System.getProperty("bench.service.jvm-options", "")).trim());
        try (LocalSystem system = LocalSystem.start(stack, Benchmarks.repoRoot(), false, List.of("billing"))) {
            PaymentGatewaySandbox gateway = stack.paymentGateway();
            String billing = system.url("billing");
            slowGateway(gateway);

            Latencies firstCharges = new Latencies();
            long started = System.nanoTime();
            List<UUID> subscribed = subscribe(billing, firstCharges);
            double firstChargesPerSecond = subscribed.size() / ((System.nanoTime() - started) / 1e9);
            System.out.printf("%d first charges, %.1f/s%n", subscribed.size(), firstChargesPerSecond);
            Duration firstSettled = awaitPaid(stack, 0, subscribed.size());

            List<Renewals> renewals = new ArrayList<>();
            renewals.add(renew(stack, billing, gateway, 1, Duration.ofDays(32), "healthy gateway", subscribed.size()));
            gateway.failRatio(faultRatio, 500);
            renewals.add(renew(stack, billing, gateway, 2, Duration.ofDays(31), String.format("%.0f %% of answers a 500", faultRatio * 100),
                    subscribed.size()));
            gateway.recover();
            slowGateway(gateway);
            String reconciliation = reconcile(stack, billing, gateway, 3, subscribed.size());
            String money = checkMoney(stack, gateway, subscribed, 3);

            String report = String.format("""
                    money path: billing-service against the gateway sandbox (latency median %d ms, p99 %d ms; look-ups %d ms, %d ms), %d subscriptions
                      first charges (%d clients, closed loop): %.1f/s, %d requests sent again after a 502/503; the last uncertain one settled %.1f s after the last answer
                                                              p50         p90         p99       p99.9         max
                      POST /subscriptions (201)         %s

                      renewals                     renewed  first paid    99 %% paid all settled renewals/s charge calls by the job  dunning (paid after the clock moved a day)
                    %s
                      %s
                      %s
                    """, median.toMillis(), p99.toMillis(), lookupMedian.toMillis(), lookupP99.toMillis(), subscribed.size(), clients, firstChargesPerSecond, resent.get(),
                    firstSettled.toMillis() / 1000.0, firstCharges.row(),
                    renewals.stream().map(Renewals::row).collect(Collectors.joining("\n")), reconciliation, money);
            System.out.println(report);
            Benchmarks.writeResult("money-path.txt", report);
        }
    }

    private void slowGateway(PaymentGatewaySandbox gateway) {
        gateway.respondAfter(median, p99);
        gateway.answerLookupsAfter(lookupMedian, lookupP99);
    }

    /** A user, a billing key and a PRO subscription of a new guild per subscription; returns the subscriptions. */
    private List<UUID> subscribe(String billing, Latencies latencies) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<UUID>> futures = new ArrayList<>();
            for (int i = 0; i < subscriptions; i++) {
                futures.add(pool.submit(() -> {
                    String user = UUID.randomUUID().toString();
                    String key = id(postAgainIfNotSent(billing + "/users/" + user + "/billing-keys", Tokens.user(user),
                            "{\"authKey\":\"auth-" + UUID.randomUUID() + "\"}", 201));
                    long sent = System.nanoTime();
                    // 202: the charge's answer did not come in time (the latency's tail); the reconciliation job settles it
                    String subscription = id(postAgainIfNotSent(billing + "/subscriptions", Tokens.user(user), String.format(
                            "{\"guildId\":\"%s\",\"userId\":\"%s\",\"planCode\":\"PRO\",\"billingKeyId\":\"%s\"}", Snowflakes.random(), user, key),
                            201, 202));
                    synchronized (latencies) {
                        latencies.recordNanos(System.nanoTime() - sent);
                    }
                    return UUID.fromString(subscription);
                }));
            }
            List<UUID> subscribed = new ArrayList<>();
            for (Future<UUID> future : futures) {
                subscribed.add(future.get());
            }
            return subscribed;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Waits until every subscription paid {@code period}; how long that took. */
    private static Duration awaitPaid(Devstack stack, int period, int expected) throws Exception {
        long started = System.nanoTime();
        while (payments(stack, period).getOrDefault("SUCCEEDED", 0L) < expected) {
            if (System.nanoTime() - started > PATIENCE.toNanos()) {
                throw new IllegalStateException("period " + period + " not paid by every subscription within " + PATIENCE + ": " + payments(stack, period));
            }
            Thread.sleep(200);
        }
        return Duration.ofNanos(System.nanoTime() - started);
    }

    /** Moves billing's clock by {@code by} and times the renewals of {@code period} until every subscription paid it. */
    private Renewals renew(Devstack stack, String billing, PaymentGatewaySandbox gateway, int period, Duration by, String label, int expected)
            throws Exception {
        long callsBefore = chargeCalls(gateway, period);
        long moved = System.nanoTime();
        advanceClock(billing, by);
        Duration toFirst = null;
        Duration to99 = null;
        Map<String, Long> statuses = Map.of();
        while (System.nanoTime() - moved < PATIENCE.toNanos()) {
            statuses = payments(stack, period);
            Duration since = Duration.ofNanos(System.nanoTime() - moved);
            long paid = statuses.getOrDefault("SUCCEEDED", 0L);
            if (toFirst == null && paid > 0) {
                toFirst = since;
            }
            if (to99 == null && paid >= Math.ceil(expected * 0.99)) {
                to99 = since;
            }
            // a renewal whose charge the gateway never got (an uncertain answer the reconciliation job found absent) is
            // dunning's: PAST_DUE, tried again a retry interval later
            long dunning = statuses.getOrDefault("IN_PROGRESS", 0L) == 0 ? inDunning(stack, period) : 0;
            if (paid + dunning == expected) {
                to99 = to99 == null ? since : to99;
                Duration dunningPaid = Duration.ZERO;
                if (dunning > 0) {
                    advanceClock(billing, Duration.ofHours(25));
                    dunningPaid = awaitPaid(stack, period, expected);
                }
                Renewals done = new Renewals(label, period, expected, toFirst, to99, since, chargeCalls(gateway, period) - callsBefore,
                        settledLate(stack, period), dunning, dunningPaid);
                System.out.println(done.row());
                return done;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("period " + period + " not paid by every subscription within " + PATIENCE + ": " + statuses);
    }

    /** Subscriptions whose attempt at the period failed and that have none paid or in flight: waiting for dunning's next try. */
    private static long inDunning(Devstack stack, int period) throws SQLException {
        try (Connection db = stack.postgres().connect("billing");
             PreparedStatement query = db.prepareStatement("select count(distinct subscription_id) from payment p where purpose = 'PERIOD'"
                     + " and period = ? and status = 'FAILED' and not exists (select 1 from payment q where q.subscription_id = p.subscription_id"
                     + " and q.period = p.period and q.purpose = p.purpose and q.status in ('SUCCEEDED', 'IN_PROGRESS'))")) {
            query.setInt(1, period);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    /**
     * Makes every charge of {@code period} one billing cannot know the outcome of (the gateway keeps it
     * pending, then takes it and loses the callback), moves the clock past the settle-after delay and the
     * job's interval, and times the job until every payment is SUCCEEDED.
     */
    private String reconcile(Devstack stack, String billing, PaymentGatewaySandbox gateway, int period, int expected) throws Exception {
        gateway.keepPending(expected);
        advanceClock(billing, Duration.ofDays(31));
        long waited = System.nanoTime();
        // billing stores each attempt before its call, so its rows come first: wait for the gateway's own
        List<Charge> pending = List.of();
        while (payments(stack, period).getOrDefault("IN_PROGRESS", 0L) < expected || (pending = pendingCharges(gateway, period)).size() < expected) {
            if (System.nanoTime() - waited > PATIENCE.toNanos()) {
                throw new IllegalStateException("period " + period + ": not every charge pending within " + PATIENCE + ": " + payments(stack, period)
                        + ", " + pending.size() + " pending at the gateway");
            }
            Thread.sleep(200);
        }
        gateway.loseCallbacks(expected);
        pending.forEach(c -> gateway.settle(c.paymentKey(), Status.DONE));

        long moved = System.nanoTime();
        // past settle-after (30 s) and the job's interval (1 min), both on billing's clock
        advanceClock(billing, Duration.ofSeconds(95));
        Duration toFirst = null;
        while (System.nanoTime() - moved < PATIENCE.toNanos()) {
            long paid = payments(stack, period).getOrDefault("SUCCEEDED", 0L);
            Duration since = Duration.ofNanos(System.nanoTime() - moved);
            if (toFirst == null && paid > 0) {
                toFirst = since;
            }
            if (paid == expected) {
                long settling = since.toMillis() - toFirst.toMillis();
                return String.format("reconciliation: %d payments paid at the gateway but IN_PROGRESS in billing, all settled %.1f s after they became"
                        + " due (first after %.1f s, the queue's poll interval included): %.1f payments/s", expected, since.toMillis() / 1000.0,
                        toFirst.toMillis() / 1000.0, settling <= 0 ? Double.NaN : expected / (settling / 1000.0));
            }
            Thread.sleep(200);
        }
        return String.format("reconciliation: %s of %d settled after %s", payments(stack, period), expected, PATIENCE);
    }

    /** Per subscription: one charge taken per period at the gateway, one SUCCEEDED payment per period in billing, the same sums. */
    private String checkMoney(Devstack stack, PaymentGatewaySandbox gateway, List<UUID> subscribed, int lastPeriod) throws SQLException {
        Map<String, Long> takenByPeriod = new HashMap<>();
        long taken = 0;
        for (Charge charge : gateway.charges()) {
            if (charge.status() == Status.DONE) {
                // per period, whatever the attempt: sub-<id>-p<period>-a<attempt>
                takenByPeriod.merge(charge.idempotencyKey().replaceAll("-a\\d+$", ""), 1L, Long::sum);
                taken += charge.amount();
            }
        }
        long doubleCharged = takenByPeriod.values().stream().filter(n -> n > 1).count();
        long recorded;
        long wrongPeriods;
        try (Connection db = stack.postgres().connect("billing");
             PreparedStatement sums = db.prepareStatement("select coalesce(sum(amount), 0) from payment where status = 'SUCCEEDED'");
             PreparedStatement perSubscription = db.prepareStatement("select count(*) from (select subscription_id from payment"
                     + " where status = 'SUCCEEDED' and purpose = 'PERIOD' group by subscription_id having count(*) <> ? or count(distinct period) <> ?) wrong")) {
            try (ResultSet rows = sums.executeQuery()) {
                rows.next();
                recorded = rows.getLong(1);
            }
            perSubscription.setInt(1, lastPeriod + 1);
            perSubscription.setInt(2, lastPeriod + 1);
            try (ResultSet rows = perSubscription.executeQuery()) {
                rows.next();
                wrongPeriods = rows.getLong(1);
            }
        }
        long expectedCharges = (long) subscribed.size() * (lastPeriod + 1);
        long takenCharges = takenByPeriod.size();
        String verdict = doubleCharged == 0 && wrongPeriods == 0 && taken == recorded && takenCharges == expectedCharges ? "OK" : "WRONG";
        return String.format("money check %s: %d charges taken for %d expected (periods 0–%d), %d idempotency keys charged twice, %d subscriptions"
                        + " without exactly one paid payment per period; the gateway took ₩%,d and billing recorded ₩%,d", verdict, takenCharges,
                expectedCharges, lastPeriod, doubleCharged, wrongPeriods, taken, recorded);
    }

    private static Map<String, Long> payments(Devstack stack, int period) throws SQLException {
        try (Connection db = stack.postgres().connect("billing");
             PreparedStatement query = db.prepareStatement("select status, count(*) from payment where purpose = 'PERIOD' and period = ? group by status")) {
            query.setInt(1, period);
            Map<String, Long> counts = new HashMap<>();
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    counts.put(rows.getString(1), rows.getLong(2));
                }
            }
            return counts;
        }
    }

    /** Payments of the period their own charge's answer did not settle: the callback or the reconciliation job did. */
    private static long settledLate(Devstack stack, int period) throws SQLException {
        try (Connection db = stack.postgres().connect("billing");
             PreparedStatement query = db.prepareStatement("select count(*) from payment where purpose = 'PERIOD' and period = ?"
                     + " and status = 'SUCCEEDED' and resolved_at > attempted_at + interval '10 seconds'")) {
            query.setInt(1, period);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    private static List<Charge> pendingCharges(PaymentGatewaySandbox gateway, int period) {
        return gateway.charges().stream().filter(c -> c.status() == Status.IN_PROGRESS && c.idempotencyKey() != null
                && c.idempotencyKey().contains("-p" + period + "-a")).toList();
    }

    private static long chargeCalls(PaymentGatewaySandbox gateway, int period) {
        return gateway.received().stream().filter(r -> r.isCharge() && r.idempotencyKey() != null && r.idempotencyKey().contains("-p" + period + "-a")).count();
    }

    private void advanceClock(String billing, Duration by) throws Exception {
        post(billing + "/test-control/clock/advance", Tokens.admin(), "{\"by\":\"" + by + "\"}", 200);
    }

    /**
     * As a client does with billing's 502/503 ("the gateway surely got nothing, try again", a draw of the
     * latency beyond the read timeout while issuing a key): up to three more times, counted.
     */
    private String postAgainIfNotSent(String url, String token, String body, int... expected) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return post(url, token, body, expected);
            } catch (NotSent notSent) {
                if (attempt == 4) {
                    throw notSent;
                }
                resent.incrementAndGet();
            }
        }
    }

    /** A 502 or 503 answer: billing stored nothing and the gateway took nothing. */
    private static final class NotSent extends IllegalStateException {
        NotSent(String message) {
            super(message);
        }
    }

    private String post(String url, String token, String body, int... expected) throws Exception {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        if ((answer.statusCode() == 502 || answer.statusCode() == 503) && Arrays.stream(expected).noneMatch(status -> status == answer.statusCode())) {
            throw new NotSent("POST " + url + " answered " + answer.statusCode() + ": " + answer.body());
        }
        if (Arrays.stream(expected).noneMatch(status -> status == answer.statusCode())) {
            throw new IllegalStateException("POST " + url + " answered " + answer.statusCode() + ": " + answer.body());
        }
        return answer.body();
    }

    private static String id(String body) {
        Matcher matcher = ID.matcher(body);
        if (!matcher.find()) {
            throw new IllegalStateException("no id in " + body);
        }
        return matcher.group(1);
    }
}
