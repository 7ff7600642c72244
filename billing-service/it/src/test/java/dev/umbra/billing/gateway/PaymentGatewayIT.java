package dev.umbra.billing.gateway;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.umbra.billing.gateway.PaymentGatewayClient.ChargeRequest;
import dev.umbra.billing.gateway.PaymentGatewayClient.GatewayPayment;
import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.devstack.PaymentGatewaySandbox.Charge;
import dev.umbra.devstack.PaymentGatewaySandbox.Status;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.Metrics;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.faulttolerance.api.CircuitBreakerState;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The guarded gateway clients against devstack's payment gateway sandbox, its faults played for real. */
@QuarkusTest
// every fault the gateway plays is reported as the operators' alerts expect: retries and circuit openings at WARN
@ExpectedLog(category = "dev.umbra.billing.gateway.GatewayGuards")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
class PaymentGatewayIT {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @InjectDevstack
    PaymentGatewaySandbox gateway;

    @Inject
    PaymentGatewayClient client;

    @Inject
    CircuitBreakerMaintenance circuits;

    private String customer;
    private String billingKey;

    @BeforeEach
    void freshGatewayAndClosedCircuits() {
        gateway.reset();
        customer = "customer-" + UUID.randomUUID();
        billingKey = client.issueBillingKey("auth-" + customer, customer).await().atMost(WAIT).billingKey();
        gateway.reset();
        circuits.resetAll();
    }

    @Test
    void serverErrorsAndThrottlingAreRetriedUntilTheChargeIsAccepted() {
        gateway.failNext(2, 500);
        String order = newOrder();
        assertThat(charge(order)).isInstanceOf(ChargeOutcome.Accepted.class);
        assertThat(gateway.chargeAttempts()).isEqualTo(3);

        gateway.failNext(3, 429);
        String throttled = newOrder();
        ChargeOutcome accepted = charge(throttled);
        assertThat(accepted).isInstanceOf(ChargeOutcome.Accepted.class);
        assertThat(gateway.chargeAttempts()).isEqualTo(3 + 4);
        assertThat(gateway.chargesOf(order)).hasSize(1);
        assertThat(gateway.chargesOf(throttled)).singleElement().extracting(Charge::paymentKey)
                .isEqualTo(((ChargeOutcome.Accepted) accepted).paymentKey());
    }

    @Test
    void aRefusalThatOutlastsTheRetriesSurelyDidNotArriveAndChargedNothing() {
        gateway.failNext(4, 500);
        String order = newOrder();
        assertThat(charge(order)).isInstanceOfSatisfying(ChargeOutcome.SurelyNotArrived.class,
                notArrived -> assertThat(notArrived.problem().status()).isEqualTo(502));
        assertThat(gateway.chargeAttempts()).isEqualTo(4);
        assertThat(gateway.chargesOf(order)).isEmpty();
    }

    @Test
    void noTryStartsOnceTheChargesTimeIsOverAndTheCallSaysItWasAnswered500IfAnEarlierTryWas() {
        assertThat(charge(newOrder(), System.nanoTime() - 1)).isInstanceOfSatisfying(ChargeOutcome.SurelyNotArrived.class,
                notArrived -> assertThat(notArrived.answeredUnprocessed()).isFalse());
        assertThat(gateway.received()).isEmpty();

        // answered 500 after 400 ms, so the guard's retry would start after the time: not sent, and the call was answered 500
        gateway.respondAfter(Duration.ofMillis(400), Duration.ofMillis(400));
        gateway.failNext(1, 500);
        String order = newOrder();
        assertThat(charge(order, System.nanoTime() + Duration.ofMillis(200).toNanos())).isInstanceOfSatisfying(ChargeOutcome.SurelyNotArrived.class,
                notArrived -> assertThat(notArrived.answeredUnprocessed()).isTrue());
        assertThat(gateway.chargeAttempts()).isEqualTo(1);
        assertThat(gateway.chargesOf(order)).isEmpty();
        assertThat(circuits.currentState(GatewayGuards.PAYMENT)).isEqualTo(CircuitBreakerState.CLOSED);
    }

    @Test
    void refusedAndTimedOutConnectsSurelyDidNotArrive() {
        gateway.refuseConnections();
        assertThat(charge(newOrder())).isInstanceOf(ChargeOutcome.SurelyNotArrived.class);
        gateway.recover();
        gateway.dropConnections();
        assertThat(charge(newOrder())).isInstanceOf(ChargeOutcome.SurelyNotArrived.class);
        gateway.recover();

        assertThat(gateway.received()).isEmpty();
        assertThat(gateway.charges()).isEmpty();
        assertThat(charge(newOrder())).isInstanceOf(ChargeOutcome.Accepted.class);
    }

    @Test
    void anAnswerSlowerThanTheReadTimeoutIsUncertainAndNeverSentAgain() {
        gateway.answerLate(1, Duration.ofSeconds(5));
        String order = newOrder();

        assertThat(charge(order)).isInstanceOf(ChargeOutcome.Uncertain.class);
        assertThat(gateway.chargeAttempts()).isEqualTo(1);
        assertThat(gateway.chargesOf(order)).singleElement().extracting(Charge::status).isEqualTo(Status.DONE);
        // what the look-up by order (the reconciliation's way) finds for it
        assertThat(client.listByOrder(order).await().atMost(WAIT)).singleElement().extracting(GatewayPayment::status).isEqualTo("DONE");
    }

    @Test
    void aConnectionResetAfterTheChargeIsUncertainAndChargedOnce() {
        gateway.resetAfterCharge(1);
        String order = newOrder();

        assertThat(charge(order)).isInstanceOf(ChargeOutcome.Uncertain.class);
        assertThat(gateway.chargeAttempts()).isEqualTo(1);
        assertThat(gateway.chargesOf(order)).hasSize(1);
    }

    @Test
    void concurrentChargesOfOneAttemptUnderFaultsChargeOnce() {
        gateway.failRatio(0.3, 500);
        String order = newOrder();
        String idempotencyKey = UUID.randomUUID().toString();
        List<ChargeOutcome> outcomes = Uni.join().all(IntStream.range(0, 8)
                        .mapToObj(i -> client.charge(new ChargeRequest(billingKey, customer, order, idempotencyKey, 9_900, "PRO"),
                                System.nanoTime() + Duration.ofMinutes(1).toNanos()))
                        .toList())
                .andCollectFailures().await().atMost(WAIT);
        gateway.recover();

        assertThat(gateway.chargesOf(order)).hasSizeLessThanOrEqualTo(1);
        assertThat(outcomes).filteredOn(ChargeOutcome.Accepted.class::isInstance).extracting(o -> ((ChargeOutcome.Accepted) o).paymentKey())
                .containsOnly(gateway.chargesOf(order).stream().map(Charge::paymentKey).toArray(String[]::new));
    }

    @Test
    void theCircuitOpensAtThresholdSendsNothingWhileOpenAndHalfOpensAfterTheWait() {
        IntStream.range(0, 7).forEach(i -> assertThat(charge(newOrder())).isInstanceOf(ChargeOutcome.Accepted.class));
        for (int failure = 1; failure <= 3; failure++) {
            gateway.failNext(4, 500);
            assertThat(charge(newOrder())).isInstanceOf(ChargeOutcome.SurelyNotArrived.class);
            assertThat(circuits.currentState(GatewayGuards.PAYMENT))
                    .isEqualTo(failure < 3 ? CircuitBreakerState.CLOSED : CircuitBreakerState.OPEN);
        }

        // what the dashboard's circuit panel and the "circuit open" alert read
        Metrics open = Metrics.scrape();
        assertThat(open.sum("ft_circuitbreaker_state_current", "method=\"pg-payment\"", "state=\"open\"")).isEqualTo(1.0);
        assertThat(open.sum("ft_circuitbreaker_opened_total", "method=\"pg-payment\"")).isGreaterThanOrEqualTo(1.0);

        long callsBefore = gateway.received().size();
        List<ChargeOutcome> whileOpen = IntStream.range(0, 5).mapToObj(i -> charge(newOrder())).toList();
        assertThat(whileOpen).allSatisfy(outcome -> assertThat(outcome)
                .isInstanceOfSatisfying(ChargeOutcome.SurelyNotArrived.class, notArrived -> assertThat(notArrived.circuitOpen()).isTrue()));
        assertThat(gateway.received()).hasSize((int) callsBefore);

        await().atMost(WAIT).until(() -> charge(newOrder()) instanceof ChargeOutcome.Accepted);
        assertThat(circuits.currentState(GatewayGuards.PAYMENT)).isEqualTo(CircuitBreakerState.HALF_OPEN);
        charge(newOrder());
        charge(newOrder());
        assertThat(circuits.currentState(GatewayGuards.PAYMENT)).isEqualTo(CircuitBreakerState.CLOSED);
    }

    @Test
    void aCallThatSucceedsAfterThreeRetriesCountsAsOneSuccessForTheCircuit() {
        // Retry outside the circuit breaker would record 30 failures in these 40 attempts and open it.
        for (int i = 0; i < 10; i++) {
            gateway.failNext(3, 500);
            assertThat(charge(newOrder())).isInstanceOf(ChargeOutcome.Accepted.class);
        }
        assertThat(gateway.chargeAttempts()).isEqualTo(40);
        assertThat(circuits.currentState(GatewayGuards.PAYMENT)).isEqualTo(CircuitBreakerState.CLOSED);
        // the series the README's alert table names
        assertThat(given().get(io.quarkus.test.common.http.TestHTTPResourceManager.getManagementUri() + "/metrics").then().statusCode(200).extract().asString())
                .contains("ft_retry_calls_total{method=\"pg-payment.retry\",retried=\"true\",retryResult=\"valueReturned\"}")
                .contains("ft_circuitbreaker_calls_total{circuitBreakerResult=\"success\",method=\"pg-payment\"}")
                .contains("ft_circuitbreaker_state_current{method=\"pg-payment\",state=\"closed\"} 1.0")
                .contains("umbra_payment_gateway_slow_call_rate{name=\"pg-payment\"}");
    }

    @Test
    void lookUpsRetryOnceAndHaveTheirOwnCircuit() {
        String order = newOrder();
        String paymentKey = ((ChargeOutcome.Accepted) charge(order)).paymentKey();

        gateway.failNext(1, 500);
        assertThat(client.find(paymentKey).await().atMost(WAIT)).get().extracting(GatewayPayment::amount).isEqualTo(9_900L);
        gateway.failNext(2, 500);
        assertThatThrownBy(() -> client.find(paymentKey).await().atMost(WAIT)).isInstanceOf(GatewayFault.class);
        assertThat(circuits.currentState(GatewayGuards.QUERY)).isEqualTo(CircuitBreakerState.CLOSED);
        assertThat(circuits.currentState(GatewayGuards.PAYMENT)).isEqualTo(CircuitBreakerState.CLOSED);
        assertThat(client.find("pay_unknown").await().atMost(WAIT)).isEmpty();
    }

    private ChargeOutcome charge(String order) {
        return charge(order, System.nanoTime() + Duration.ofMinutes(1).toNanos());
    }

    private ChargeOutcome charge(String order, long sendBefore) {
        return client.charge(new ChargeRequest(billingKey, customer, order, order + ":1", 9_900, "PRO"), sendBefore).await().atMost(WAIT);
    }

    private static String newOrder() {
        return "order-" + UUID.randomUUID();
    }
}
