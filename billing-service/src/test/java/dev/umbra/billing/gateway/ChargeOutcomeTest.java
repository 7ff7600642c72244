package dev.umbra.billing.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.smallrye.mutiny.Uni;
import io.vertx.core.impl.NoStackTraceTimeoutException;
import java.net.ConnectException;
import java.net.SocketException;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.junit.jupiter.api.Test;

class ChargeOutcomeTest {

    @Test
    void anOpenCircuitSurelyDidNotSendTheRequestAndAnswers503() {
        ChargeOutcome outcome = ChargeOutcome.ofFailure(new CircuitBreakerOpenException("pg-payment"), false);

        assertThat(outcome).isInstanceOfSatisfying(ChargeOutcome.SurelyNotArrived.class, notArrived -> {
            assertThat(notArrived.circuitOpen()).isTrue();
            assertThat(notArrived.problem().status()).isEqualTo(503);
        });
    }

    @Test
    void aFailedConnectOrARefusalAfterTheRetriesSurelyDidNotArriveAndAnswers502() {
        for (GatewayFault fault : new GatewayFault[] {GatewayFault.of(new ConnectException("Connection refused")), GatewayFault.refused(500)}) {
            assertThat(ChargeOutcome.ofFailure(fault, false)).isInstanceOfSatisfying(ChargeOutcome.SurelyNotArrived.class, notArrived -> {
                assertThat(notArrived.circuitOpen()).isFalse();
                assertThat(notArrived.problem().status()).isEqualTo(502);
            });
        }
    }

    @Test
    void aCallWhoseEarlierTryWasAnswered500StaysAnsweredUnprocessedWhenItsLastTryFindsNoConnectionOrTheCircuitOpen() {
        assertThat(ChargeOutcome.ofFailure(GatewayFault.of(new ConnectException("Connection refused")), false))
                .isInstanceOfSatisfying(ChargeOutcome.SurelyNotArrived.class, notArrived -> assertThat(notArrived.answeredUnprocessed()).isFalse());
        for (Throwable last : new Throwable[] {GatewayFault.of(new ConnectException("Connection refused")), new CircuitBreakerOpenException("pg-payment")}) {
            assertThat(ChargeOutcome.ofFailure(last, true)).isInstanceOfSatisfying(ChargeOutcome.SurelyNotArrived.class,
                    notArrived -> assertThat(notArrived.answeredUnprocessed()).isTrue());
            assertThat(CancelOutcome.ofFailure(last, true)).isInstanceOfSatisfying(CancelOutcome.SurelyNotArrived.class,
                    notArrived -> assertThat(notArrived.answeredUnprocessed()).isTrue());
        }
    }

    @Test
    void aTryAnswered500IsRememberedAcrossTheGuardsTriesOfOneCallAndAFailedConnectIsNot() {
        PaymentGatewayClient.AnsweredUnprocessed answered = new PaymentGatewayClient.AnsweredUnprocessed();
        answered.watch(Uni.createFrom().failure(GatewayFault.of(new ConnectException("Connection refused")))).onFailure().recoverWithNull().await().indefinitely();
        assertThat(answered.seen).isFalse();
        answered.watch(Uni.createFrom().failure(GatewayFault.refused(429))).onFailure().recoverWithNull().await().indefinitely();
        answered.watch(Uni.createFrom().failure(GatewayFault.of(new ConnectException("Connection refused")))).onFailure().recoverWithNull().await().indefinitely();
        assertThat(answered.seen).isTrue();
    }

    @Test
    void aTryNotSentBecauseTheChargesTimeIsOverSurelyDidNotArrive() {
        assertThat(ChargeOutcome.ofFailure(new SendWindowClosed(), false)).isInstanceOfSatisfying(ChargeOutcome.SurelyNotArrived.class, notArrived -> {
            assertThat(notArrived.circuitOpen()).isFalse();
            assertThat(notArrived.answeredUnprocessed()).isFalse();
        });
        assertThat(ChargeOutcome.ofFailure(new SendWindowClosed(), true)).isInstanceOfSatisfying(ChargeOutcome.SurelyNotArrived.class,
                notArrived -> assertThat(notArrived.answeredUnprocessed()).isTrue());
    }

    @Test
    void aReadTimeoutAResetOrAnythingUnknownIsUncertain() {
        assertThat(ChargeOutcome.ofFailure(GatewayFault.of(new NoStackTraceTimeoutException("timeout")), false)).isInstanceOf(ChargeOutcome.Uncertain.class);
        assertThat(ChargeOutcome.ofFailure(GatewayFault.of(new SocketException("Connection reset")), false)).isInstanceOf(ChargeOutcome.Uncertain.class);
        assertThat(ChargeOutcome.ofFailure(new IllegalStateException("unexpected"), false)).isInstanceOf(ChargeOutcome.Uncertain.class);
    }
}
