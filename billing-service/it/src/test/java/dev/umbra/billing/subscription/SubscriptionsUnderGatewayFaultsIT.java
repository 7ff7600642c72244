package dev.umbra.billing.subscription;

import static dev.umbra.billing.BillingFixtures.newKey;
import static dev.umbra.billing.BillingFixtures.subscribe;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.billing.PayingUserTest;
import dev.umbra.billing.clock.MovableClock;
import dev.umbra.billing.invoice.AutomaticRefunds;
import dev.umbra.billing.payment.PaymentReconciliation;
import dev.umbra.billing.payment.PaymentSettlement;
import dev.umbra.billing.payment.ReconciliationSettings;
import dev.umbra.billing.payment.StrayChargeReturns;
import dev.umbra.devstack.PaymentGatewaySandbox.Status;
import dev.umbra.platform.workqueue.PagedRun;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The whole service under a gateway that fails at random: a seeded loop of subscriptions, plan changes,
 * cancels, renewals (the clock moved), reconciliation and stray-charge runs, callbacks lost, doubled or
 * late, and charges answered late, reset, throttled, left pending or declined. What must hold is read
 * from the sandbox's own record of what it charged: never two charges taken for one thing, and in the
 * end the money the gateway keeps for each subscription is exactly what its ledger says was paid, with
 * every payment resolved.
 */
@QuarkusTest
// faults played on purpose: the guard reports retries and its circuit, the settlement money it must give back
@ExpectedLog(category = "dev.umbra.billing.gateway.GatewayGuards")
@ExpectedLog(category = "dev.umbra.billing.payment.PaymentSettlement", message = "to be given back")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
class SubscriptionsUnderGatewayFaultsIT extends PayingUserTest {

    private static final int OPERATIONS = 320;
    private static final long DEFAULT_SEED = 2158765178299L;
    private static final Pattern KEY = Pattern.compile("sub-([0-9a-f-]{36})-p(\\d+)(-up-[A-Z]+)?-a(\\d+)");
    private static final Duration STUCK = Duration.ofSeconds(90);
    private static final Set<Integer> ANSWERS = Set.of(200, 201, 202, 402, 409, 422, 502, 503);

    @Inject
    MovableClock clock;

    @Inject
    Renewals renewals;

    @Inject
    PaymentReconciliation reconciliation;

    @Inject
    StrayChargeReturns strayCharges;

    @Inject
    AutomaticRefunds automaticRefunds;

    @Inject
    ReconciliationSettings settings;

    @TestHTTPResource("/webhooks/payment-gateway")
    URL webhook;

    private final Map<Integer, Integer> answered = new TreeMap<>();
    private final Map<String, Integer> operations = new TreeMap<>();
    private boolean faulty;

    @BeforeEach
    void callbacksToThisService() {
        gateway.reset();
        gateway.callbackUrl(webhook.toString());
    }

    @AfterEach
    void noMoreCallbacks() {
        gateway.stopCallingBack();
        gateway.reset();
    }

    @Test
    void neverTwoChargesForOneThingAndTheGatewayKeepsExactlyWhatTheLedgerSays() throws Exception {
        // a fixed scenario by default, so that a build is repeatable; -Dbilling.property.seed=random explores new ones
        String asked = System.getProperty("billing.property.seed", Long.toString(DEFAULT_SEED));
        long seed = "random".equals(asked) ? System.nanoTime() : Long.parseLong(asked);
        System.out.println("gateway-fault property run: seed " + seed + " (-Dbilling.property.seed=N runs it again, =random another)");
        Random random = new Random(seed);
        List<UUID[]> payers = new ArrayList<>();
        payers.add(new UUID[] {user, key});
        for (int i = 0; i < 3; i++) {
            UUID other = UUID.randomUUID();
            payers.add(new UUID[] {other, newKey(other)});
        }
        List<UUID[]> subscriptions = new ArrayList<>();
        // every subscription of this run's users, those whose first charge failed included (other test classes share the database)
        String ours = "select id from subscription where user_id in (" + payers.stream().map(p -> "'" + p[0] + "'")
                .collect(Collectors.joining(",")) + ")";

        for (int step = 0; step < OPERATIONS; step++) {
            if (faulty && random.nextInt(5) == 0) {
                // a fault lasts a few operations, as gateway incidents do; the circuit then closes on its own
                gateway.recover();
                faulty = false;
            }
            int pick = random.nextInt(100);
            try {
                if (pick < 22) {
                    UUID[] payer = payers.get(random.nextInt(payers.size()));
                    Response answer = subscribe(payer[0], Snowflakes.random(), random.nextBoolean() ? "PRO" : "PREMIUM", payer[1]);
                    count("subscribe", answer);
                    if (answer.statusCode() == 201 || answer.statusCode() == 202) {
                        subscriptions.add(new UUID[] {UUID.fromString(answer.path("id")), payer[0]});
                    }
                } else if (pick < 34 && !subscriptions.isEmpty()) {
                    UUID[] subscription = subscriptions.get(random.nextInt(subscriptions.size()));
                    count("change plan", given().auth().oauth2(Tokens.user(subscription[1].toString())).contentType(ContentType.JSON)
                            .body("{\"planCode\":\"" + (random.nextBoolean() ? "PREMIUM" : "PRO") + "\"}")
                            .when().put("/subscriptions/{id}/plan", subscription[0]));
                } else if (pick < 40 && !subscriptions.isEmpty()) {
                    UUID[] subscription = subscriptions.get(random.nextInt(subscriptions.size()));
                    count("cancel", given().auth().oauth2(Tokens.user(subscription[1].toString()))
                            .queryParam("at", random.nextInt(3) == 0 ? "now" : "period-end")
                            .when().delete("/subscriptions/{id}", subscription[0]));
                } else if (pick < 52) {
                    operations.merge("clock and renewals", 1, Integer::sum);
                    if (random.nextInt(4) == 0) {
                        // days pass: card issuers decide a pending charge within minutes, never days
                        decidePendingCharges(random);
                        clock.advance(Duration.ofDays(1 + random.nextInt(35)));
                    } else {
                        clock.advance(Duration.ofMinutes(1 + random.nextInt(30)));
                    }
                    renewAllDue();
                } else if (pick < 62) {
                    operations.merge("reconciliation", 1, Integer::sum);
                    PagedRun.Summary<PaymentSettlement.Result> run = await(() -> reconciliation.run());
                    // a circuit a fault opened may still be open after the gateway healed: a run that could not look proves nothing
                    // (a renewal attempt kept to be sent again as it is, after a 500 or 429, is its renewal item's to send once that
                    // item's back-off is over, in real time: not an uncertain payment, and left to the item by design)
                    if (!faulty && run.unreachable() == 0) {
                        assertThat(db.count("select count(*) from payment p where p.status = 'IN_PROGRESS' and p.attempted_at < ? "
                                + "and p.subscription_id in (" + ours + ") and not (p.kept_for_resend and exists (select 1 from work_item w "
                                + "where w.queue = 'subscription-renewal' and w.status in ('pending', 'leased') "
                                + "and w.item_key like p.subscription_id || ':p' || p.period || ':a%'))",
                                clock.instant().minus(settings.pendingWindow()).minus(settings.settleAfter())))
                                .as("payments older than the pending window after a run with the gateway healthy (seed %d)", seed).isZero();
                    }
                } else if (pick < 67) {
                    operations.merge("stray-charge and automatic-refund runs", 1, Integer::sum);
                    await(() -> strayCharges.run());
                    await(() -> automaticRefunds.run());
                } else if (pick < 76) {
                    operations.merge("issuer decides a pending charge", 1, Integer::sum);
                    gateway.charges().stream().filter(c -> c.status() == Status.IN_PROGRESS).findAny()
                            .ifPresent(c -> gateway.settle(c.paymentKey(), random.nextInt(4) == 0 ? Status.ABORTED : Status.DONE));
                } else {
                    operations.merge("fault", 1, Integer::sum);
                    fault(random);
                }
            } catch (AssertionError e) {
                throw new AssertionError("step " + step + ", seed " + seed + ": " + e.getMessage(), e);
            }
        }

        settleEverything(random, ours);

        System.out.printf("gateway-fault property run: seed %d, %d subscriptions, operations %s, answers %s, %d gateway requests, "
                + "%d charges given back by the service%n", seed, subscriptions.size(), operations, answered, gateway.received().size(),
                db.count("select count(*) from refund r join invoice i on i.id = r.invoice_id where r.idempotency_key = 'automatic' "
                        + "and i.subscription_id in (" + ours + ")"));
        assertThat(answered.keySet()).as("seed %d", seed).isSubsetOf(ANSWERS);
        assertThat(db.count("select count(*) from payment where status = 'IN_PROGRESS' and subscription_id in (" + ours + ")"))
                .as("seed %d", seed).isZero();
        assertThat(db.text("select coalesce(string_agg(s.status, ','), '') from stray_charge s join payment p on p.id = s.payment_id "
                + "where s.status not in ('RETURNED', 'NOTHING_TAKEN') and p.subscription_id in (" + ours + ")")).as("seed %d", seed).isEmpty();
        // a charge a subscription could not use is given back by the service: every such refund succeeded
        assertThat(db.text("select coalesce(string_agg(r.status, ','), '') from refund r join invoice i on i.id = r.invoice_id "
                + "where r.status <> 'SUCCEEDED' and i.subscription_id in (" + ours + ")")).as("seed %d", seed).isEmpty();
        Map<UUID, Long> kept = keptByGateway();
        List<UUID> all = List.of(db.text("select string_agg(id::text, ',') from (" + ours + ") s").split(",")).stream().map(UUID::fromString)
                .toList();
        assertThat(all).as("seed %d", seed).hasSizeGreaterThanOrEqualTo(subscriptions.size());
        for (UUID subscription : all) {
            long booked = db.count("select coalesce(sum(amount), 0) from ledger_entry where subscription_id = ?", subscription);
            assertThat(kept.getOrDefault(subscription, 0L)).as("money kept for %s vs its ledger (seed %d)", subscription, seed)
                    .isEqualTo(booked);
            long succeeded = db.count("select coalesce(sum(paid_amount), 0) from payment where subscription_id = ? and status = 'SUCCEEDED'",
                    subscription);
            long refunded = db.count("select coalesce(sum(r.amount), 0) from refund r join invoice i on i.id = r.invoice_id "
                    + "where i.subscription_id = ? and r.status = 'SUCCEEDED'", subscription);
            assertThat(succeeded - refunded).as("payments succeeded less refunds for %s vs its ledger (seed %d)", subscription, seed)
                    .isEqualTo(booked);
        }
        assertThat(subscriptions).as("seed %d: the run must have subscribed something", seed).isNotEmpty();
    }

    /** A fault for the next calls (until the loop ends it). */
    private void fault(Random random) {
        faulty = true;
        switch (random.nextInt(10)) {
            case 0 -> gateway.failRatio(0.4, 500);
            case 1 -> gateway.failRatio(0.4, 429);
            case 2 -> gateway.answerLate(1, Duration.ofMillis(2_300));
            case 3 -> gateway.resetAfterCharge(1);
            case 4 -> gateway.loseCallbacks(1 + random.nextInt(3));
            case 5 -> gateway.duplicateCallbacks(1 + random.nextInt(2));
            case 6 -> gateway.delayCallbacks(1, Duration.ofMillis(300));
            case 7 -> gateway.keepPending(1 + random.nextInt(2));
            case 8 -> gateway.decline(1);
            default -> gateway.refuseConnections();
        }
    }

    /**
     * The gateway heals and every pending charge is decided by its issuer; then the clock passes the
     * pending window and the stray-charge watch, and the jobs run until nothing is left to settle.
     */
    private void settleEverything(Random random, String ours) throws Exception {
        gateway.recover();
        circuits.resetAll();
        faulty = false;
        decidePendingCharges(random);
        for (int round = 0; round < 6; round++) {
            clock.advance(settings.pendingWindow().plus(settings.settleAfter()).plusSeconds(1));
            await(() -> reconciliation.run());
            renewAllDue();
            await(() -> reconciliation.run());
            clock.advance(settings.strayWatch().plusSeconds(1));
            await(() -> strayCharges.run());
            await(() -> automaticRefunds.run());
            boolean open = db.count("select count(*) from payment where status = 'IN_PROGRESS' and subscription_id in (" + ours + ")") > 0
                    || db.count("select count(*) from stray_charge s join payment p on p.id = s.payment_id where s.status = 'WATCHING' "
                    + "and p.subscription_id in (" + ours + ")") > 0
                    || db.count("select count(*) from refund r join invoice i on i.id = r.invoice_id where r.status = 'SCHEDULED' "
                    + "and i.subscription_id in (" + ours + ")") > 0;
            if (!open) {
                return;
            }
        }
    }

    /** The card issuer decides every charge the gateway holds pending: mostly paid, sometimes refused. */
    private void decidePendingCharges(Random random) {
        gateway.charges().stream().filter(c -> c.status() == Status.IN_PROGRESS)
                .forEach(c -> gateway.settle(c.paymentKey(), random.nextInt(4) == 0 ? Status.ABORTED : Status.DONE));
    }

    private void renewAllDue() throws Exception {
        await(() -> renewals.scan());
        while (await(() -> renewals.runOnce()) > 0) {
            await(() -> renewals.scan());
        }
    }

    private void count(String operation, Response answer) {
        operations.merge(operation, 1, Integer::sum);
        answered.merge(answer.statusCode(), 1, Integer::sum);
        assertThat(answer.statusCode()).as("%s answered %s", operation, answer.asString()).isIn(ANSWERS);
    }

    /** What the gateway keeps of each subscription's charges: taken, less what it gave back. */
    private Map<UUID, Long> keptByGateway() {
        Map<UUID, Long> kept = new HashMap<>();
        gateway.keptByIdempotencyKey().forEach((idempotencyKey, amount) -> {
            Matcher key = KEY.matcher(idempotencyKey);
            if (key.matches()) {
                kept.merge(UUID.fromString(key.group(1)), amount, Long::sum);
            }
        });
        return kept;
    }

    /** A job's run or a scan, on a Vert.x context as the service runs them; one that never ends fails the test. */
    private <T> T await(Supplier<Uni<T>> work) throws Exception {
        CompletableFuture<T> done = CompletableFuture.supplyAsync(() -> {
            try {
                return VertxContextSupport.subscribeAndAwait(work::get);
            } catch (Throwable e) {
                throw new CompletionException(e);
            }
        });
        try {
            return done.get(STUCK.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("a job's run did not end within " + STUCK + "; the database's sessions then: " + db.text(
                    "select string_agg(pid || ' ' || state || ' xact ' || coalesce((now() - xact_start)::text, '-') || ' wait '"
                    + " || coalesce(wait_event_type || '/' || wait_event, '-') || ' blocked by ' || pg_blocking_pids(pid)::text || ': '"
                    + " || left(query, 160), E'\\n') from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()"));
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : new IllegalStateException(e.getCause());
        }
    }
}
