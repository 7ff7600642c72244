package dev.umbra.billing.payment;

import dev.umbra.billing.gateway.PaymentGatewayClient;
import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.testing.Database;
import dev.umbra.testing.InjectDevstack;
import io.quarkus.test.common.http.TestHTTPResource;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import jakarta.inject.Inject;
import java.net.URL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * For tests whose gateway sandbox calls this service back: fresh before each test (no charges, no
 * faults, closed circuits — a failure an earlier test class left in pg-query's window of five would
 * open it at the next one), silent after it.
 */
abstract class SandboxCallingBack {

    @InjectDevstack
    Database db;

    @InjectDevstack
    PaymentGatewaySandbox sandbox;

    @Inject
    PaymentGatewayClient client;

    @TestHTTPResource(GatewayCharges.WEBHOOK)
    URL webhook;

    @Inject
    CircuitBreakerMaintenance circuits;

    GatewayCharges gateway;

    @BeforeEach
    void callbacksToThisService() {
        circuits.resetAll();
        gateway = GatewayCharges.callingBack(client, sandbox, webhook);
    }

    @AfterEach
    void noMoreCallbacks() {
        gateway.close();
    }
}
