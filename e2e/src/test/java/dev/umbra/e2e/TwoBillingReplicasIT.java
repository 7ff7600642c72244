package dev.umbra.e2e;

import static dev.umbra.e2e.SystemClient.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.oneOf;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.devstack.PaymentGatewaySandbox.Charge;
import dev.umbra.devstack.PaymentGatewaySandbox.Status;
import dev.umbra.devstack.ServiceProcess;
import dev.umbra.e2e.SystemClient.Installed;
import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.testing.Database;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.LogLines;
import dev.umbra.testing.Metrics;
import dev.umbra.testing.Tokens;
import io.restassured.http.ContentType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Two billing-service processes on one database and the same consumer groups, as a deployment scaled
 * to two replicas runs them: clients subscribe through both; the gateway keeps some first charges
 * pending, loses callbacks and answers some renewals late; both replicas' clocks move together past
 * reconciliation and a month on, so that both run the renewal workers, the reconciliation and the other
 * jobs. Every period of every subscription is charged once and paid once (the gateway's own record),
 * invoiced once, announced once, and the ledger holds what the gateway kept.
 */
@FaultSuite
class TwoBillingReplicasIT {

    private static final int SUBSCRIPTIONS = 40;
    private static final long PRO = 9_900;
    private static final LogLines.Expectation[] GATEWAY_SLOW = {
        new LogLines.Expectation("dev.umbra.billing.gateway.GatewayGuards", "WARN", "sending again"),
        new LogLines.Expectation("dev.umbra.billing.gateway.GatewayGuards", "WARN", "circuit breaker")};

    private static ServiceProcess secondReplica;
    private static SystemInvariants.Mark mark;

    private final LocalSystem system = RunningSystem.get();
    private final SystemClient umbra = new SystemClient();
    private final PaymentGatewaySandbox gateway = umbra.gateway();
    private final Database billing = Database.of("billing");

    private record Paying(Installed guild, UUID user, UUID subscription) {
    }

    /** Once the second replica is gone (the check moves billing's clock, which two replicas must share), the whole system's invariants. */
    @AfterAll
    static void bothReplicasLoggedNothingUnexpectedAndTheSystemsInvariantsHold() {
        Devstack.shared().paymentGateway().recover();
        if (secondReplica != null) {
            secondReplica.close();
            assertThat(LogLines.unexpected(secondReplica.log(), 0, List.of(GATEWAY_SLOW))).as("the second replica's log").isEmpty();
        }
        if (mark != null) {
            SystemInvariants.assertHold("two billing replicas", mark);
        }
        RunningSystem.assertCleanLogs(GATEWAY_SLOW);
    }

    @Test
    void everyPeriodIsChargedOncePaidOnceAndAnnouncedOnceWhateverReplicaDoesTheWork() {
        mark = SystemInvariants.mark();
        // the second replica claims renewals in small batches, so that both take a share of one month's renewals
        secondReplica = system.startReplica("billing", "2", Map.of("umbra.work-queue.subscription-renewal.batch-size", "4",
                "umbra.work-queue.subscription-renewal.poll-interval", "PT1S"));
        List<String> replicas = List.of(system.url("billing"), secondReplica.url());
        // the first replica's clock was moved by the tests before this one; a new process starts at the machine's time
        Duration behind = Duration.between(clockOf(replicas.get(1)), clockOf(replicas.get(0)));
        advance(replicas.get(behind.isNegative() ? 0 : 1), behind.abs());
        double firstBefore = renewalsHandled(system.managementUrl("billing"));
        List<Installed> guilds = umbra.installedAll(SUBSCRIPTIONS);

        // first charges through both replicas: three kept pending by the issuer, two callbacks lost on the way
        gateway.keepPending(3);
        gateway.loseCallbacks(2);
        List<Paying> paying = new ArrayList<>();
        for (int i = 0; i < SUBSCRIPTIONS; i++) {
            paying.add(subscribe(replicas.get(i % 2), guilds.get(i)));
        }
        umbra.awaitChargesArrived();
        gateway.charges().stream().filter(c -> c.status() == Status.IN_PROGRESS).forEach(c -> gateway.settle(c.paymentKey(), Status.DONE));
        // what no callback settled, the reconciliation of one replica or the other does once the clocks have moved on
        await().atMost(TIMEOUT).pollInterval(Duration.ofSeconds(2)).until(() -> {
            advanceBothClocks(replicas, Duration.ofMinutes(2));
            return count("status = 'ACTIVE'", paying) == SUBSCRIPTIONS;
        });

        // a month later both replicas' workers take the renewals; two answers come after billing's read timeout (uncertain).
        // The second replica's clock gets there first and the first's once the second has renewed one: the first claims 64 due
        // items at a time, as many as the earlier tests and this one leave due, and would otherwise take the month alone
        gateway.answerLate(2, Duration.ofMillis(1_500));
        umbra.awaitChargesArrived();
        advance(replicas.get(1), Duration.ofDays(32));
        await().atMost(TIMEOUT).until(() -> renewalsHandled(secondReplica.managementUrl()) > 0);
        advance(replicas.get(0), Duration.ofDays(32));
        await().atMost(TIMEOUT).pollInterval(Duration.ofSeconds(2)).until(() -> {
            if (count("paid_through >= 1", paying) < SUBSCRIPTIONS) {
                advanceBothClocks(replicas, Duration.ofMinutes(2));
                return false;
            }
            return true;
        });

        for (Paying one : paying) {
            List<Charge> taken = umbra.chargesOf(one.subscription()).stream().filter(c -> c.status() == Status.DONE).toList();
            assertThat(taken).as("charges the gateway kept for %s", one.subscription()).hasSize(2)
                    .allSatisfy(charge -> assertThat(charge.amount()).isEqualTo(PRO));
            // a key names an attempt (sub-<id>-p<period>-a<attempt>): what it names without the attempt is the period
            assertThat(taken.stream().map(charge -> charge.idempotencyKey().replaceAll("-a\\d+$", "")).distinct()).as("one charge per period")
                    .hasSize(2);
            assertThat(billing.count("select count(*) from payment where subscription_id = ? and status = 'SUCCEEDED'", one.subscription()))
                    .isEqualTo(2);
            assertThat(billing.count("select count(*) from payment where subscription_id = ? and status = 'IN_PROGRESS'", one.subscription()))
                    .isZero();
            assertThat(billing.count("select count(*) from invoice where subscription_id = ?", one.subscription())).isEqualTo(2);
            assertThat(billing.count("select coalesce(sum(amount), 0) from ledger_entry where subscription_id = ?", one.subscription()))
                    .as("the ledger holds what the gateway kept").isEqualTo(2 * PRO);
        }
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(TIMEOUT).until(() -> paying.stream().allMatch(one -> !events(topic, one, "PaymentSucceeded").isEmpty()));
            for (Paying one : paying) {
                assertThat(events(topic, one, "SubscriptionStarted")).as("SubscriptionStarted of %s", one.subscription()).hasSize(1);
                assertThat(events(topic, one, "PaymentSucceeded")).as("PaymentSucceeded of %s", one.subscription()).hasSize(1);
            }
        }
        SystemClient.awaitAllConsumed();
        double first = renewalsHandled(system.managementUrl("billing")) - firstBefore;
        double second = renewalsHandled(secondReplica.managementUrl());
        System.out.printf("two billing replicas: %d subscriptions, renewal items handled by the first %.0f, by the second %.0f; "
                + "the gateway received %d requests%n", SUBSCRIPTIONS, first, second, gateway.received().size());
        assertThat(List.of(first, second)).as("renewal items each replica handled").allSatisfy(handled -> assertThat(handled).isPositive());
    }

    private Paying subscribe(String replica, Installed guild) {
        UUID user = UUID.randomUUID();
        String key = given().baseUri(replica).auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON)
                .body(Map.of("authKey", "auth-" + UUID.randomUUID())).post("/users/{userId}/billing-keys", user)
                .then().statusCode(201).extract().path("id");
        String subscription = given().baseUri(replica).auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON)
                .body(Map.of("guildId", guild.guildId(), "userId", user.toString(), "planCode", "PRO", "billingKeyId", key))
                .post("/subscriptions").then().statusCode(oneOf(201, 202)).extract().path("id");
        return new Paying(guild, user, UUID.fromString(subscription));
    }

    /**
     * Moves the clock of each replica by the same amount: a deployment's replicas share the one time. Only once the
     * charges under way have reached the gateway ({@link SystemClient#advanceBillingClockOnceChargesArrived} says why:
     * a charge the gateway got late, after a jump, was failed as one that never arrived and then given back).
     */
    private void advanceBothClocks(List<String> replicas, Duration by) {
        umbra.awaitChargesArrived();
        replicas.forEach(replica -> advance(replica, by));
    }

    private static void advance(String replica, Duration by) {
        given().baseUri(replica).auth().oauth2(Tokens.admin()).contentType(ContentType.JSON).body(Map.of("by", by.toString()))
                .post("/test-control/clock/advance").then().statusCode(200);
    }

    private static Instant clockOf(String replica) {
        return Instant.parse(given().baseUri(replica).auth().oauth2(Tokens.admin()).get("/test-control/clock")
                .then().statusCode(200).extract().path("now"));
    }

    private long count(String condition, List<Paying> paying) {
        String ids = paying.stream().map(one -> "'" + one.subscription() + "'").collect(Collectors.joining(","));
        return billing.count("select count(*) from subscription where id in (" + ids + ") and " + condition);
    }

    /** The distinct events (by event id) of one type of the subscription: a redelivery is not a second event. */
    private static List<String> events(KafkaProbe topic, Paying one, String type) {
        return topic.seen().stream().filter(r -> one.subscription().toString().equals(r.key()))
                .filter(r -> type.equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)))
                .map(r -> KafkaProbe.header(r, EventHeaders.EVENT_ID)).distinct().toList();
    }

    private static double renewalsHandled(String managementUrl) {
        double handled = Metrics.scrape(managementUrl + "/q/metrics").sum("umbra_work_queue_outcomes_total", "queue=\"subscription-renewal\"");
        return Double.isNaN(handled) ? 0 : handled;
    }
}
