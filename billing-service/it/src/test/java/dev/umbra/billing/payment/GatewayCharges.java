package dev.umbra.billing.payment;

import static io.restassured.RestAssured.given;

import dev.umbra.billing.gateway.ChargeOutcome;
import dev.umbra.billing.gateway.PaymentGatewayClient;
import dev.umbra.billing.gateway.PaymentGatewayClient.ChargeRequest;
import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.devstack.PaymentGatewaySandbox.Charge;
import dev.umbra.testing.Database;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/** Charges at devstack's gateway sandbox through the service's client, and callbacks signed as the sandbox signs them. */
public final class GatewayCharges implements AutoCloseable {

    public static final Duration WAIT = Duration.ofSeconds(20);
    public static final String WEBHOOK = "/webhooks/payment-gateway";

    private final PaymentGatewayClient client;
    private final PaymentGatewaySandbox gateway;
    private final String customer = "customer-" + UUID.randomUUID();
    private final String billingKey;

    public GatewayCharges(PaymentGatewayClient client, PaymentGatewaySandbox gateway) {
        this.client = client;
        this.gateway = gateway;
        this.billingKey = client.issueBillingKey("auth-" + customer, customer).await().atMost(WAIT).billingKey();
    }

    /** A fresh sandbox (no charges, no faults) that calls {@code webhook} back; {@link #close} stops it. */
    public static GatewayCharges callingBack(PaymentGatewayClient client, PaymentGatewaySandbox gateway, URL webhook) {
        GatewayCharges charges = new GatewayCharges(client, gateway);
        gateway.reset();
        gateway.callbackUrl(webhook.toString());
        return charges;
    }

    /** No more callbacks to this service (the next test class's may listen on another port), no charges or faults left. */
    @Override
    public void close() {
        gateway.stopCallingBack();
        gateway.reset();
    }

    /** Charges the first charge's order at the gateway, as the subscriptions would. */
    public ChargeOutcome charge(PaymentRows.FirstCharge payment) {
        return charge(payment.orderId(), payment.amount());
    }

    public ChargeOutcome charge(String orderId, long amount) {
        return client.charge(new ChargeRequest(billingKey, customer, orderId, "idem-" + orderId, amount, "PRO"), System.nanoTime() + WAIT.toNanos())
                .await().atMost(WAIT);
    }

    /** The key of an accepted charge. */
    public String chargeAccepted(PaymentRows.FirstCharge payment) {
        return ((ChargeOutcome.Accepted) charge(payment)).paymentKey();
    }

    /** The body the sandbox sends for a charge in {@code status}. */
    public static String callbackBody(Charge charge, String status) {
        return "{\"eventType\":\"PAYMENT_STATUS_CHANGED\",\"data\":{\"paymentKey\":\"" + charge.paymentKey() + "\",\"orderId\":\"" + charge.orderId()
                + "\",\"status\":\"" + status + "\",\"totalAmount\":" + charge.amount() + ",\"requestedAt\":\"" + charge.requestedAt() + "\"}}";
    }

    /** Posts a callback signed with the gateway's secret, dated {@code at}. */
    public Response deliver(String body, Instant at) {
        String timestamp = Long.toString(at.getEpochSecond());
        return given().contentType(ContentType.JSON)
                .header(PaymentGatewaySandbox.TIMESTAMP_HEADER, timestamp)
                .header(PaymentGatewaySandbox.SIGNATURE_HEADER, "v1=" + gateway.sign(timestamp + "." + body))
                .body(body).when().post(WEBHOOK);
    }

    public static String status(Database db, UUID paymentId) {
        return db.text("select status from payment where id = ?", paymentId);
    }

    /** How many times the payment row changed (each settlement is one). */
    public static long paymentChanges(Database db, UUID paymentId) {
        return db.count("select version from payment where id = ?", paymentId);
    }

    /** How many outcomes reached the subscription: each one changes its row once (SubscriptionPayments). */
    public static long outcomes(Database db, UUID subscriptionId) {
        return db.count("select version from subscription where id = ?", subscriptionId);
    }

    public static long webhookEvents(Database db, String paymentKey) {
        return db.count("select count(*) from webhook_events where payload ->> 'paymentKey' = ?", paymentKey);
    }

    public static long webhookKeys(Database db, String paymentKey) {
        return db.count("select count(*) from webhook_event_key where provider_event_id like ?", paymentKey + ":%");
    }
}
