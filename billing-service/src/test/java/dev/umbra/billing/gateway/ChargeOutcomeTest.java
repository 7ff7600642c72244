package dev.umbra.billing.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.impl.NoStackTraceTimeoutException;
import java.net.ConnectException;
import java.net.SocketException;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.junit.jupiter.api.Test;

class ChargeOutcomeTest {

    @Test
    void anOpenCircuitSurelyDidNotSendTheRequestAndAnswers503() {
        ChargeOutcome outcome = ChargeOutcome.ofFailure(new CircuitBreakerOpenException("pg-payment"));

        assertThat(outcome).isInstanceOfSatisfying(ChargeOutcome.SurelyNotArrived.class, notArrived -> {
            assertThat(notArrived.circuitOpen()).isTrue();
            assertThat(notArrived.problem().status()).isEqualTo(503);
        });
    }

    @Test
    void aFailedConnectOrARefusalAfterTheRetriesSurelyDidNotArriveAndAnswers502() {
        for (GatewayFault fault : new GatewayFault[] {GatewayFault.of(new ConnectException("Connection refused")), GatewayFault.refused(500)}) {
            assertThat(ChargeOutcome.ofFailure(fault)).isInstanceOfSatisfying(ChargeOutcome.SurelyNotArrived.class, notArrived -> {
                assertThat(notArrived.circuitOpen()).isFalse();
                assertThat(notArrived.problem().status()).isEqualTo(502);
            });
        }
    }

    @Test
    void aReadTimeoutAResetOrAnythingUnknownIsUncertain() {
        assertThat(ChargeOutcome.ofFailure(GatewayFault.of(new NoStackTraceTimeoutException("timeout")))).isInstanceOf(ChargeOutcome.Uncertain.class);
        assertThat(ChargeOutcome.ofFailure(GatewayFault.of(new SocketException("Connection reset")))).isInstanceOf(ChargeOutcome.Uncertain.class);
        assertThat(ChargeOutcome.ofFailure(new IllegalStateException("unexpected"))).isInstanceOf(ChargeOutcome.Uncertain.class);
    }
}
