package dev.umbra.billing.payment;

import dev.umbra.billing.gateway.PaymentGatewayClient;
import dev.umbra.devstack.PaymentGatewaySandbox;
import io.quarkus.test.common.http.TestHTTPResource;
import jakarta.inject.Inject;
import java.net.URL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** For tests whose gateway sandbox calls this service back: fresh before each test, silent after it. */
abstract class SandboxCallingBack {

    @Inject
    PaymentGatewayClient client;

    @TestHTTPResource(GatewayCharges.WEBHOOK)
    URL webhook;

    GatewayCharges gateway;
    PaymentGatewaySandbox sandbox;

    @BeforeEach
    void callbacksToThisService() {
        gateway = GatewayCharges.callingBack(client, webhook);
        sandbox = gateway.sandbox();
    }

    @AfterEach
    void noMoreCallbacks() {
        gateway.close();
    }
}
