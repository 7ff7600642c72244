package dev.umbra.billing.payment;

import static dev.umbra.billing.payment.GatewayCharges.WAIT;
import static dev.umbra.billing.payment.GatewayCharges.outcomes;
import static dev.umbra.billing.payment.GatewayCharges.status;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.matchesPattern;

import dev.umbra.billing.gateway.ChargeOutcome;
import dev.umbra.testing.DevstackResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The job on its own schedule (the work queue polling, as in production, with the test profile's short interval) and its meters. */
@QuarkusTest
@TestProfile(ScheduledReconciliationIT.Polling.class)
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
class ScheduledReconciliationIT extends SandboxCallingBack {

    public static class Polling implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("umbra.work-queue.payment-reconciliation.polling", "true");
        }
    }

    @TestHTTPResource(value = "/metrics", management = true)
    URL metrics;

    @Test
    void theScheduledJobSettlesWhatNoCallbackSettledAndSaysSoInItsMeters() {
        sandbox.loseCallbacks(2);
        PaymentRows.FirstCharge paid = PaymentRows.inProgress(db, 9_900, null, Instant.now().minusSeconds(5));
        gateway.charge(paid);
        String declinedOrder = "pay-declined-" + System.nanoTime();
        sandbox.decline(1);
        String declinedKey = ((ChargeOutcome.Accepted) gateway.charge(declinedOrder, 9_900)).paymentKey();
        PaymentRows.FirstCharge declined = PaymentRows.inProgress(db, 9_900, declinedKey, Instant.now().minusSeconds(5));

        await().atMost(WAIT).until(() -> !status(db, paid.paymentId()).equals("IN_PROGRESS")
                && !status(db, declined.paymentId()).equals("IN_PROGRESS"));

        assertThat(status(db, paid.paymentId())).isEqualTo("SUCCEEDED");
        assertThat(status(db, declined.paymentId())).isEqualTo("FAILED");
        assertThat(outcomes(db, paid.subscriptionId())).isEqualTo(1);
        assertThat(outcomes(db, declined.subscriptionId())).isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> given().get(metrics).then().statusCode(200)
                // the settled series exist from zero: the two settlements must have counted
                .body(matchesPattern("(?s).*umbra_billing_payments_settled_total\\{outcome=\"succeeded\",source=\"reconciliation\"} [1-9].*"))
                .body(matchesPattern("(?s).*umbra_billing_payments_settled_total\\{outcome=\"failed\",source=\"reconciliation\"} [1-9].*"))
                .body(matchesPattern("(?s).*umbra_billing_reconciliation_runs_total\\{result=\"completed\"} [1-9].*"))
                .body(containsString("umbra_billing_payments_oldest_in_progress_seconds "))
                .body(containsString("umbra_work_queue_outcomes_total{outcome=\"scheduled\",queue=\"payment-reconciliation\"}")));
    }
}
