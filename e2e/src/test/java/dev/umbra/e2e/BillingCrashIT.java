package dev.umbra.e2e;

import static dev.umbra.e2e.SystemClient.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.umbra.devstack.LocalSystem;
import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.devstack.PaymentGatewaySandbox.Charge;
import dev.umbra.devstack.PaymentGatewaySandbox.Status;
import dev.umbra.e2e.SystemClient.Installed;
import dev.umbra.testing.Database;
import dev.umbra.testing.LogLines;
import dev.umbra.testing.Tokens;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * billing-service killed (-9) while charges are on their way to a gateway that answers in about half a
 * second: once in the middle of a burst of first charges, from clients that call again what a cut
 * connection or a 503 left unanswered, and once in the middle of a month's renewals. Whatever the kill
 * cut (an attempt stored and never sent, a charge the gateway took whose answer nobody read, a commit
 * whose answer was lost), the restarted service and its reconciliation end with each period charged at
 * most once, the money the gateway keeps equal to the ledger ({@link SystemInvariants}), every guild with
 * one subscription, and every paid subscription renewed once.
 */
@FaultSuite
class BillingCrashIT {

    private static final int SUBSCRIPTIONS = 40;
    private static final int CLIENTS = 4;
    private static final Duration PATIENCE = Duration.ofSeconds(90);
    private static final long PRO = 9_900;
    /** The gateway's answers take long enough that every kill finds charges on their way. */
    private static final Duration GATEWAY_MEDIAN = Duration.ofMillis(500);
    private static final Duration GATEWAY_P99 = Duration.ofMillis(900);
    /** billing's longest work-queue lease (payment-reconciliation's, as shipped) and a poll: a dead process's claims run out by then. */
    private static final Duration LEASES_RUN_OUT = Duration.ofMinutes(5).plusSeconds(30);
    private static final LogLines.Expectation[] GATEWAY_SLOW = {
        new LogLines.Expectation("dev.umbra.billing.gateway.GatewayGuards", "WARN", "sending again"),
        new LogLines.Expectation("dev.umbra.billing.gateway.GatewayGuards", "WARN", "circuit breaker")};

    private final LocalSystem system = RunningSystem.get();
    private final SystemClient umbra = new SystemClient();
    private final PaymentGatewaySandbox gateway = umbra.gateway();
    private final Database billing = Database.of("billing");
    /** Each guild's subscribe: its last answer, and whether a cut connection or a 503 made its client call again. */
    private final Map<String, SystemClient.Answer> subscribed = new ConcurrentHashMap<>();

    @AfterEach
    void gatewayAtFullSpeed() {
        gateway.recover();
    }

    @AfterAll
    static void logsAreClean() {
        RunningSystem.assertCleanLogs(GATEWAY_SLOW);
    }

    @Test
    void billingKilledWhileChargesAreOnTheirWayChargesEachPeriodOnceAndRenewsEveryPaidSubscription() throws Exception {
        SystemInvariants.Mark mark = SystemInvariants.mark();
        List<Installed> guilds = umbra.installedAll(SUBSCRIPTIONS);
        gateway.respondAfter(GATEWAY_MEDIAN, GATEWAY_P99);

        // first charges: killed once a quarter of them succeeded, started again at once; the clients carry on
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        List<Future<?>> subscribing;
        long onTheirWay;
        try {
            subscribing = guilds.stream().<Future<?>>map(guild -> clients.submit(() -> subscribe(guild))).toList();
            // once a quarter are paid, at a moment a charge is on its way (the clients spend half their time on billing keys)
            await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(20)).until(() -> firstChargesPaid(guilds) >= SUBSCRIPTIONS / 4 && inProgress() > 0);
            Instant clock = umbra.billingClock();
            system.crash("billing");
            onTheirWay = inProgress();
            List<List<String>> claimed = claims();
            system.restart("billing");
            umbra.restoreBillingClock(clock);
            for (Future<?> client : subscribing) {
                client.get();
            }
            leasesRunOut(claimed);
        } finally {
            clients.shutdownNow();
        }
        assertThat(onTheirWay).as("first charges on their way when billing was killed").isPositive();
        settled();

        // a month on: killed again once a quarter of the paid subscriptions are renewed
        List<String> paid = subscriptions(guilds, "ACTIVE");
        umbra.advanceBillingClockOnceChargesArrived(Duration.ofDays(32));
        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(20)).until(() -> renewed(paid) >= paid.size() / 4 && inProgress() > 0);
        Instant clock = umbra.billingClock();
        system.crash("billing");
        long renewalsOnTheirWay = inProgress();
        List<List<String>> claimed = claims();
        system.restart("billing");
        umbra.restoreBillingClock(clock);
        assertThat(renewalsOnTheirWay).as("renewals on their way when billing was killed").isPositive();
        assertThat(claimed).as("renewals the killed process had claimed").anySatisfy(item -> assertThat(item.get(0)).isEqualTo("subscription-renewal"));
        leasesRunOut(claimed);
        await().atMost(TIMEOUT).pollInterval(Duration.ofSeconds(2)).until(() -> {
            if (renewed(paid) < paid.size()) {
                umbra.advanceBillingClockOnceChargesArrived(Duration.ofMinutes(2));
                return false;
            }
            return true;
        });

        SystemInvariants.assertHold("billing-service killed mid-charges", mark);
        Map<String, Long> byStatus = new TreeMap<>();
        for (Installed guild : guilds) {
            SystemClient.Answer answer = subscribed.get(guild.guildId());
            List<List<String>> rows = billing.rows("select id::text, status from subscription where guild_id = ?", guild.guildId());
            assertThat(rows).as("subscriptions of guild %s (answered %d)", guild.guildId(), answer.status()).hasSize(1);
            String status = rows.get(0).get(1);
            byStatus.merge(status, 1L, Long::sum);
            if (answer.status() == 201 && !answer.triedAgain()) {
                assertThat(status).as("subscription of guild %s, paid at once", guild.guildId()).isEqualTo("ACTIVE");
            } else {
                // a charge the kill cut off before it reached the gateway took no money: its subscription was canceled
                assertThat(status).as("subscription of guild %s (answered %d)", guild.guildId(), answer.status()).isIn("ACTIVE", "CANCELED");
            }
            if (status.equals("ACTIVE")) {
                List<Charge> kept = umbra.chargesOf(UUID.fromString(rows.get(0).get(0))).stream().filter(c -> c.status() == Status.DONE).toList();
                assertThat(kept).as("charges the gateway kept for guild %s", guild.guildId()).hasSize(2)
                        .allSatisfy(charge -> assertThat(charge.amount()).isEqualTo(PRO));
            }
        }
        System.out.printf("billing killed twice: %d subscriptions by status %s; %d first charges and %d renewals on their way at the "
                + "kills; the gateway received %d requests%n", SUBSCRIPTIONS, byStatus, onTheirWay, renewalsOnTheirWay, gateway.received().size());
        assertThat(byStatus.getOrDefault("ACTIVE", 0L)).as("subscriptions paid").isGreaterThanOrEqualTo(SUBSCRIPTIONS / 2);
    }

    /**
     * A new user's billing key and PRO subscription for the guild, as a client that calls again after a cut connection or a
     * 503 (billing being away), within {@link #PATIENCE}: 201 paid, 202 settled later, 409 after a call that may have taken
     * effect (the guild's subscription of the first call).
     */
    private void subscribe(Installed guild) {
        UUID user = UUID.randomUUID();
        SystemClient.Answer key = callAgainWhileAway(() -> given().baseUri(system.url("billing")).auth().oauth2(Tokens.user(user.toString()))
                .contentType(ContentType.JSON).body(Map.of("authKey", "auth-" + UUID.randomUUID()))
                .post("/users/{userId}/billing-keys", user));
        assertThat(key.status()).as("billing key for %s: %s", guild.guildId(), key.response().asString()).isEqualTo(201);
        SystemClient.Answer subscription = callAgainWhileAway(() -> given().baseUri(system.url("billing"))
                .auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON)
                .body(Map.of("guildId", guild.guildId(), "userId", user.toString(), "planCode", "PRO",
                        "billingKeyId", key.response().<String>path("id")))
                .post("/subscriptions"));
        assertThat(subscription.status()).as("subscription of %s: %s", guild.guildId(), subscription.response().asString())
                .isIn(subscription.triedAgain() ? List.of(201, 202, 409) : List.of(201, 202));
        subscribed.put(guild.guildId(), subscription);
    }

    private static SystemClient.Answer callAgainWhileAway(Supplier<Response> call) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        boolean again = false;
        while (true) {
            try {
                SystemClient.Answer answer = SystemClient.tryingAgain(Duration.ofNanos(deadline - System.nanoTime()), call);
                return new SystemClient.Answer(answer.response(), again || answer.triedAgain());
            } catch (Exception cut) {
                // the connection was refused or cut by the kill (RestAssured throws the IOException as it is): whatever the call
                // did is unknown, so it is made again
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no answer within " + PATIENCE, cut);
                }
                again = true;
                SystemClient.pause(Duration.ofMillis(200));
            }
        }
    }

    /** The work items leased when billing was killed: its only process held them, and nothing renews their leases now. */
    private List<List<String>> claims() {
        return billing.rows("select queue, item_key, lease_token::text from work_item where status = 'leased'");
    }

    /**
     * Until each item the killed process held is no longer held under its claim: its lease ran out (on the database's clock) and
     * the restarted process took it over, or finished it. Till then that work waits, as it would for any dead worker.
     */
    private void leasesRunOut(List<List<String>> claimed) {
        await().atMost(LEASES_RUN_OUT).pollInterval(Duration.ofSeconds(2)).until(() -> claimed.stream().noneMatch(item -> billing.count(
                "select count(*) from work_item where queue = ? and item_key = ? and status = 'leased' and lease_token = cast(? as bigint)",
                item.get(0), item.get(1), item.get(2)) > 0));
    }

    /** Until no payment is left IN_PROGRESS: billing's reconciliation settles what the kill left, once its clock has moved on. */
    private void settled() {
        await().atMost(TIMEOUT).pollInterval(Duration.ofSeconds(2)).until(() -> {
            if (inProgress() > 0) {
                umbra.advanceBillingClockOnceChargesArrived(Duration.ofMinutes(2));
                return false;
            }
            return true;
        });
    }

    private long inProgress() {
        return billing.count("select count(*) from payment where status = 'IN_PROGRESS'");
    }

    private long firstChargesPaid(List<Installed> guilds) {
        return billing.count("select count(*) from payment p join subscription s on s.id = p.subscription_id "
                + "where p.period = 0 and p.status = 'SUCCEEDED' and s.guild_id in (" + ids(guilds.stream().map(Installed::guildId).toList()) + ")");
    }

    private List<String> subscriptions(List<Installed> guilds, String status) {
        return billing.rows("select id::text from subscription where status = ? and guild_id in ("
                + ids(guilds.stream().map(Installed::guildId).toList()) + ")", status).stream().map(row -> row.get(0)).toList();
    }

    private long renewed(List<String> subscriptions) {
        return billing.count("select count(*) from subscription where paid_through >= 1 and id::text in (" + ids(subscriptions) + ")");
    }

    private static String ids(List<String> ids) {
        return String.join(",", ids.stream().map(id -> "'" + id + "'").toList());
    }
}
