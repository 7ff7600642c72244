package dev.umbra.billing.payment;

import static dev.umbra.billing.payment.GatewayCharges.outcomes;
import static dev.umbra.billing.payment.GatewayCharges.paymentChanges;
import static dev.umbra.billing.payment.GatewayCharges.status;
import static dev.umbra.billing.payment.GatewayCharges.webhookEvents;
import static dev.umbra.billing.payment.GatewayCharges.webhookKeys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.billing.gateway.PaymentGatewayClient;
import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.testing.Database;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.TcpProxy;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The database goes away while the gateway calls back: 503 (the gateway delivers again), nothing half-stored, applied once when redelivered. */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.platform.web.ProblemMappers", message = "database unavailable")
@ExpectedLog(category = "dev.umbra.platform.workqueue.WorkQueues", message = "round failed")
@ExpectedLog(category = "dev.umbra.platform.inbox.Inbox", message = "waits at")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
class CallbackDuringOutageIT {

    @InjectDevstack
    Database db;

    @InjectDevstack
    PaymentGatewaySandbox sandbox;

    @InjectDevstack
    TcpProxy link;

    @Inject
    PaymentGatewayClient client;

    @AfterEach
    void restore() {
        link.restore();
        sandbox.reset();
    }

    @Test
    void aCallbackDuringAnOutageAnswers503AndIsAppliedOnceWhenDeliveredAgain() {
        GatewayCharges gateway = new GatewayCharges(client, sandbox);
        sandbox.reset();
        PaymentRows.FirstCharge payment = PaymentRows.inProgress(db, 9_900, null, Instant.now());
        sandbox.loseCallbacks(1);
        gateway.charge(payment);
        String paymentKey = sandbox.chargesOf(payment.orderId()).get(0).paymentKey();
        String body = GatewayCharges.callbackBody(sandbox.chargesOf(payment.orderId()).get(0), "DONE");

        link.cut();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> gateway.deliver(body, Instant.now()).then()
                .statusCode(503).contentType("application/problem+json").body("status", equalTo(503)));
        link.restore();

        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> gateway.deliver(body, Instant.now()).statusCode() == 200);
        gateway.deliver(body, Instant.now()).then().statusCode(200);

        assertThat(status(db, payment.paymentId())).isEqualTo("SUCCEEDED");
        assertThat(paymentChanges(db, payment.paymentId())).isEqualTo(1);
        assertThat(outcomes(db, payment.subscriptionId())).isEqualTo(1);
        assertThat(webhookKeys(db, paymentKey)).isEqualTo(1);
        assertThat(webhookEvents(db, paymentKey)).isEqualTo(1);
        assertThat(db.text("select status from webhook_events where payload ->> 'paymentKey' = ?", paymentKey)).isEqualTo("completed");
    }
}
