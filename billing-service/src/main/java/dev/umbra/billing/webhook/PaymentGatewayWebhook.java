package dev.umbra.billing.webhook;

import dev.umbra.billing.gateway.PaymentGatewaySettings;
import dev.umbra.billing.payment.GatewayReport;
import dev.umbra.billing.payment.PaymentMetrics;
import dev.umbra.billing.payment.PaymentSettlement;
import dev.umbra.billing.payment.PaymentSettlement.Result;
import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.web.ProblemException;
import io.smallrye.mutiny.Uni;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * The payment gateway's callbacks. No JWT: the HMAC signature is the authentication, checked before
 * anything else (401, nothing stored). A genuine callback is recorded in webhook_events once per
 * provider event (a redelivery of a finished event answers 200 and does nothing; one whose apply was
 * cut short by a fault is applied again), then applied through {@link PaymentSettlement}. 200 once
 * applied; a database fault answers 503 and the gateway delivers again.
 */
@Path("/webhooks/payment-gateway")
@DatabaseGuard
public class PaymentGatewayWebhook {

    static final String PROVIDER = "payment-gateway";
    static final String SIGNATURE_HEADER = "Payment-Gateway-Signature";
    static final String TIMESTAMP_HEADER = "Payment-Gateway-Timestamp";
    static final String PAYMENT_STATUS_CHANGED = "PAYMENT_STATUS_CHANGED";

    private static final Logger LOG = Logger.getLogger(PaymentGatewayWebhook.class);
    private static final Clock WALL_CLOCK = Clock.systemUTC();

    private final CallbackSignature signatures;
    private final WebhookEvents events;
    private final PaymentSettlement settlement;
    private final PaymentMetrics metrics;
    private final Clock clock;

    PaymentGatewayWebhook(PaymentGatewaySettings gateway, WebhookSettings settings, WebhookEvents events, PaymentSettlement settlement,
            PaymentMetrics metrics, Clock clock) {
        this.signatures = new CallbackSignature(gateway.callbackSecret().orElse(null), settings.replayWindow());
        this.events = events;
        this.settlement = settlement;
        this.metrics = metrics;
        this.clock = clock;
    }

    @POST
    @PermitAll
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<Map<String, String>> receive(@HeaderParam(SIGNATURE_HEADER) String signature, @HeaderParam(TIMESTAMP_HEADER) String timestamp,
            byte[] body) {
        Instant now = clock.instant();
        // the replay window bounds a signature's age on the wire: real time, whatever the service's clock says
        // (a local or test run moves the business clock forward; the gateway signs with the time of day)
        CallbackSignature.Refusal refusal = signatures.check(signature, timestamp, body == null ? new byte[0] : body, WALL_CLOCK.instant());
        if (refusal != null) {
            LOG.infof("payment gateway callback refused: %s", refusal.detail);
            return Uni.createFrom().failure(new ProblemException(401, "Unauthorized", refusal.detail));
        }
        return Uni.createFrom().deferred(() -> record(parse(body), body, now));
    }

    private Uni<Map<String, String>> record(JsonObject callback, byte[] body, Instant now) {
        if (!(callback.getValue("eventType") instanceof String eventType) || eventType.isBlank() || eventType.length() > 64) {
            throw ProblemException.badRequest("eventType is required (at most 64 characters)");
        }
        if (!PAYMENT_STATUS_CHANGED.equals(eventType)) {
            // Not ours to apply, but genuine: kept (its type only) and acknowledged, or the gateway would send it forever.
            return events.record(PROVIDER, eventType + ":" + sha256(body), eventType, new JsonObject().put("eventType", eventType),
                    WebhookEvents.SKIPPED, now).map(recorded -> answer(recorded.status()));
        }
        GatewayReport report = report(callback);
        return events.record(PROVIDER, report.paymentKey() + ":" + report.status(), eventType, stored(eventType, report), WebhookEvents.RECEIVED, now)
                .chain(recorded -> {
                    if (recorded.duplicate()) {
                        metrics.webhookDuplicate(PROVIDER);
                        LOG.debugf("payment gateway callback %s %s delivered again (event %s, %s)", report.paymentKey(), report.status(),
                                recorded.id(), recorded.status());
                    }
                    if (recorded.finished()) {
                        return Uni.createFrom().item(answer(recorded.status()));
                    }
                    return events.claim(recorded).chain(claimed -> claimed ? apply(recorded, report) : Uni.createFrom().item(answer("finished")));
                });
    }

    private Uni<Map<String, String>> apply(WebhookEvents.Recorded recorded, GatewayReport report) {
        return settlement.apply(report, PaymentSettlement.Source.CALLBACK,
                        result -> events.finish(recorded, eventStatus(result), result.name(), clock.instant()))
                .call(result -> result == Result.LOST_RACE
                        ? events.finishApart(recorded, WebhookEvents.SKIPPED, result.name(), clock.instant())
                        : Uni.createFrom().voidItem())
                .map(result -> answer(eventStatus(result)));
    }

    /** completed: it changed the payment; skipped: nothing to change; failed: nothing it could apply to. */
    private static String eventStatus(Result result) {
        if (result.changedPayment()) {
            return WebhookEvents.COMPLETED;
        }
        return switch (result) {
            case PENDING, ALREADY_SETTLED, LOST_RACE -> WebhookEvents.SKIPPED;
            default -> WebhookEvents.FAILED;
        };
    }

    private static JsonObject parse(byte[] body) {
        try {
            return new JsonObject(Buffer.buffer(body));
        } catch (DecodeException | ClassCastException | NullPointerException notAnObject) {
            throw ProblemException.badRequest("the body is not a JSON object");
        }
    }

    private static GatewayReport report(JsonObject callback) {
        if (!(callback.getValue("data") instanceof JsonObject data)) {
            throw ProblemException.badRequest("data is missing");
        }
        String paymentKey = text(data, "paymentKey", 100);
        String orderId = text(data, "orderId", 100);
        // the stored event's id is "paymentKey:status", at most 200 characters
        String status = text(data, "status", 64);
        if (!(data.getValue("totalAmount") instanceof Number amount) || amount.longValue() < 0 || amount.doubleValue() != amount.longValue()) {
            throw ProblemException.badRequest("data.totalAmount must be a whole, non-negative amount");
        }
        return new GatewayReport(paymentKey, orderId, status, amount.longValue());
    }

    private static String text(JsonObject data, String field, int longest) {
        if (!(data.getValue(field) instanceof String value) || value.isBlank() || value.length() > longest) {
            throw ProblemException.badRequest("data." + field + " is required (at most " + longest + " characters)");
        }
        return value;
    }

    /** Only the fields this service reads: whatever else a callback carries (card data included) is never stored. */
    private static JsonObject stored(String eventType, GatewayReport report) {
        return new JsonObject().put("eventType", eventType).put("paymentKey", report.paymentKey()).put("orderId", report.orderId())
                .put("status", report.status()).put("totalAmount", report.amount());
    }

    private static Map<String, String> answer(String status) {
        return Map.of("status", status);
    }

    private static String sha256(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
