package dev.umbra.billing.gateway;

import io.smallrye.common.annotation.Identifier;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.tracing.TracingPolicy;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The payment gateway's HTTP API, each call through its guard. A Vert.x web client rather than a
 * REST client: the classification needs the transport's own failures (a refused or timed-out connect
 * against a timeout waiting for the answer, a reset), which arrive here unwrapped, and each of the two
 * clients has its own connect timeout. Connections are not kept alive: a request on a pooled connection
 * the gateway already closed would fail as "closed", which could only be classified as uncertain.
 */
@ApplicationScoped
public class PaymentGatewayClient {

    /** A billing key as the gateway issued it, with the masked card only. */
    public record IssuedBillingKey(String billingKey, String maskedCardNumber, String issuer) {
        @Override
        public String toString() {
            return "IssuedBillingKey[" + maskedCardNumber + ", " + issuer + "]";
        }
    }

    /**
     * A payment as the gateway reports it: status IN_PROGRESS, DONE, ABORTED, PARTIAL_CANCELED or
     * CANCELED, with the cancels (refunds) made of it.
     */
    public record GatewayPayment(String paymentKey, String orderId, String status, long amount, List<GatewayCancel> cancels) {

        /** The cancel that the request with {@code idempotencyKey} made, if the gateway made it. */
        public Optional<GatewayCancel> cancelOf(String idempotencyKey) {
            return cancels.stream().filter(cancel -> idempotencyKey.equals(cancel.idempotencyKey())).findFirst();
        }
    }

    /** Money given back from a payment, with the idempotency key of the request that asked for it. */
    public record GatewayCancel(String transactionKey, long amount, String idempotencyKey) {
    }

    /**
     * A charge of a billing key. {@code orderId} names the payment attempt (look-ups by order find it
     * when no answer came back) and {@code idempotencyKey} makes a repeated request the same payment.
     */
    public record ChargeRequest(String billingKey, String customerKey, String orderId, String idempotencyKey, long amount,
            String orderName) {

        /** Without the billing key, which is as good as the card to whoever holds the secret key. */
        @Override
        public String toString() {
            return "ChargeRequest[orderId=" + orderId + ", idempotencyKey=" + idempotencyKey + ", amount=" + amount + "]";
        }
    }

    private static final Logger LOG = Logger.getLogger(PaymentGatewayClient.class);
    /**
     * The gateway's answer to a request whose idempotency key another request is being processed under: an earlier try of
     * ours (its guard sends a try again after a 500) that may yet be carried out, so the outcome is not known, not refused.
     */
    private static final int IN_FLIGHT = 409;
    private static final String IN_FLIGHT_REASON = "the gateway answered 409: a request with this idempotency key is in flight";

    private final PaymentGatewaySettings settings;
    private final GatewayGuard payment;
    private final GatewayGuard query;
    private final WebClient paymentClient;
    private final WebClient queryClient;
    private final String authorization;

    PaymentGatewayClient(PaymentGatewaySettings settings, Vertx vertx, @Identifier(GatewayGuards.PAYMENT) GatewayGuard payment,
            @Identifier(GatewayGuards.QUERY) GatewayGuard query) {
        this.settings = settings;
        this.payment = payment;
        this.query = query;
        this.paymentClient = webClient(vertx, settings.payment());
        this.queryClient = webClient(vertx, settings.query());
        this.authorization = "Basic " + Base64.getEncoder().encodeToString((settings.secretKey() + ":").getBytes(StandardCharsets.UTF_8));
    }

    /** Charges a billing key; never fails: every failure is classified. */
    /**
     * Charges once, whatever the guard's tries; no try starts once {@link System#nanoTime()} has passed {@code sendBefore}
     * (the charge's time to reach the gateway, after which its billing key may be deleted): such a call is not sent.
     */
    public Uni<ChargeOutcome> charge(ChargeRequest charge, long sendBefore) {
        JsonObject body = new JsonObject().put("customerKey", charge.customerKey()).put("orderId", charge.orderId())
                .put("amount", charge.amount()).put("orderName", charge.orderName());
        AnsweredUnprocessed answered = new AnsweredUnprocessed();
        return payment.call(() -> System.nanoTime() - sendBefore >= 0 ? Uni.createFrom().failure(new SendWindowClosed())
                        : answered.watch(send(paymentClient.postAbs(url("/v1/billing/" + segment(charge.billingKey())))
                                .putHeader("Idempotency-Key", charge.idempotencyKey()), settings.payment(), body)))
                .map(answer -> {
                    if (answer.statusCode() == 200) {
                        JsonObject accepted = answer.bodyAsJsonObject();
                        return (ChargeOutcome) new ChargeOutcome.Accepted(accepted.getString("paymentKey"), accepted.getString("status"),
                                accepted.getValue("totalAmount") instanceof Number amount ? amount.longValue() : null);
                    }
                    if (answer.statusCode() == IN_FLIGHT) {
                        return (ChargeOutcome) new ChargeOutcome.Uncertain(IN_FLIGHT_REASON);
                    }
                    if (answer.statusCode() >= 400) {
                        return rejected(answer);
                    }
                    return (ChargeOutcome) new ChargeOutcome.Uncertain("unexpected answer " + answer.statusCode());
                })
                .onFailure().recoverWithItem(failure -> ChargeOutcome.ofFailure(failure, answered.seen));
    }

    /** Issues a billing key from the auth key of a card registration. */
    public Uni<IssuedBillingKey> issueBillingKey(String authKey, String customerKey) {
        JsonObject body = new JsonObject().put("authKey", authKey).put("customerKey", customerKey);
        return payment.call(() -> send(paymentClient.postAbs(url("/v1/billing/authorizations/issue")), settings.payment(), body))
                .map(answer -> {
                    JsonObject issued = expect(answer, 200);
                    JsonObject card = issued.getJsonObject("card", new JsonObject());
                    return new IssuedBillingKey(issued.getString("billingKey"), card.getString("number"), card.getString("issuer"));
                });
    }

    /**
     * Gives {@code amount} of a paid payment back (a refund, whole or partial), through the pg-payment
     * guard like a charge; repeating it with the same idempotency key cancels once. Never fails: every
     * failure is classified.
     */
    public Uni<CancelOutcome> cancel(String paymentKey, long amount, String reason, String idempotencyKey) {
        JsonObject body = new JsonObject().put("cancelReason", reason).put("cancelAmount", amount);
        AnsweredUnprocessed answered = new AnsweredUnprocessed();
        return payment.call(() -> answered.watch(send(paymentClient.postAbs(url("/v1/payments/" + segment(paymentKey) + "/cancel"))
                        .putHeader("Idempotency-Key", idempotencyKey), settings.payment(), body)))
                .map(answer -> {
                    if (answer.statusCode() == 200) {
                        return payment(answer.bodyAsJsonObject()).cancelOf(idempotencyKey)
                                .<CancelOutcome>map(cancel -> new CancelOutcome.Canceled(cancel.transactionKey()))
                                .orElseGet(() -> new CancelOutcome.Uncertain("the gateway's answer lists no cancel with our key"));
                    }
                    if (answer.statusCode() == IN_FLIGHT) {
                        return (CancelOutcome) new CancelOutcome.Uncertain(IN_FLIGHT_REASON);
                    }
                    if (answer.statusCode() >= 400) {
                        JsonObject error = errorOf(answer);
                        return (CancelOutcome) new CancelOutcome.Rejected(answer.statusCode(), error.getString("code", "UNKNOWN"),
                                error.getString("message", ""));
                    }
                    return (CancelOutcome) new CancelOutcome.Uncertain("unexpected answer " + answer.statusCode());
                })
                .onFailure().recoverWithItem(failure -> CancelOutcome.ofFailure(failure, answered.seen));
    }

    public Uni<Optional<GatewayPayment>> find(String paymentKey) {
        return query.call(() -> send(queryClient.getAbs(url("/v1/payments/" + segment(paymentKey))), settings.query(), null))
                .map(answer -> answer.statusCode() == 404 ? Optional.empty() : Optional.of(payment(expect(answer, 200))));
    }

    public Uni<List<GatewayPayment>> listByOrder(String orderId) {
        return query.call(() -> send(queryClient.getAbs(url("/v1/payments")).addQueryParam("orderId", orderId), settings.query(), null))
                .map(answer -> {
                    if (answer.statusCode() != 200) {
                        throw rejection(answer);
                    }
                    JsonArray payments = answer.bodyAsJsonArray();
                    return payments.stream().map(p -> payment((JsonObject) p)).toList();
                });
    }

    /** One HTTP exchange, as a fresh request on each subscription; transport failures and 5xx/429 become {@link GatewayFault}s. */
    /**
     * Whether any try of one call the guard repeated was answered 500 or 429: a gateway breaking its contract may have
     * carried that try out, so the call is no "surely never arrived" even when its last try found no connection or the
     * circuit open.
     */
    static final class AnsweredUnprocessed {
        volatile boolean seen;

        Uni<HttpResponse<Buffer>> watch(Uni<HttpResponse<Buffer>> attempt) {
            return attempt.onFailure(GatewayFault.class).invoke(failure -> {
                GatewayFault fault = (GatewayFault) failure;
                if (fault.surelyNotArrived() && fault.answered()) {
                    seen = true;
                }
            });
        }
    }

    private Uni<HttpResponse<Buffer>> send(HttpRequest<Buffer> request, PaymentGatewaySettings.Client client, JsonObject body) {
        request.putHeader("Authorization", authorization).idleTimeout(client.readTimeout().toMillis());
        return Uni.createFrom().completionStage(() -> (body == null ? request.send() : request.sendJsonObject(body)).toCompletionStage())
                .onFailure().transform(GatewayFault::of)
                .map(answer -> {
                    if (GatewayFault.refusedUnprocessed(answer.statusCode())) {
                        throw GatewayFault.refused(answer.statusCode());
                    }
                    if (GatewayFault.failedUncertain(answer.statusCode())) {
                        throw GatewayFault.failed(answer.statusCode());
                    }
                    return answer;
                });
    }

    private static ChargeOutcome rejected(HttpResponse<Buffer> answer) {
        JsonObject error = errorOf(answer);
        return new ChargeOutcome.Rejected(answer.statusCode(), error.getString("code", "UNKNOWN"), error.getString("message", ""));
    }

    private static JsonObject expect(HttpResponse<Buffer> answer, int status) {
        if (answer.statusCode() != status) {
            throw rejection(answer);
        }
        return answer.bodyAsJsonObject();
    }

    private static GatewayRejection rejection(HttpResponse<Buffer> answer) {
        JsonObject error = errorOf(answer);
        return new GatewayRejection(answer.statusCode(), error.getString("code", "UNKNOWN"), error.getString("message", ""));
    }

    private static JsonObject errorOf(HttpResponse<Buffer> answer) {
        try {
            JsonObject error = answer.bodyAsJsonObject();
            return error == null ? new JsonObject() : error;
        } catch (RuntimeException notJson) {
            return new JsonObject();
        }
    }

    private static GatewayPayment payment(JsonObject json) {
        JsonArray canceled = json.getJsonArray("cancels", new JsonArray());
        List<GatewayCancel> cancels = canceled.stream().map(c -> (JsonObject) c)
                .map(c -> new GatewayCancel(c.getString("transactionKey"), c.getLong("cancelAmount", 0L), c.getString("idempotencyKey")))
                .toList();
        return new GatewayPayment(json.getString("paymentKey"), json.getString("orderId"), json.getString("status"),
                json.getLong("totalAmount", 0L), cancels);
    }

    private String url(String path) {
        return settings.url() + path;
    }

    /** A key as one path segment: a billing key may hold '/', '+' or '='. */
    private static String segment(String key) {
        return URLEncoder.encode(key, StandardCharsets.UTF_8);
    }

    /**
     * A failure of a connection (a reset) already fails its request, where it is classified; the
     * connection's own handler only keeps Vert.x from reporting it a second time as an unhandled error.
     * No span for a gateway call: a charge's URL carries the billing key, which a span would keep as its
     * {@code url.full}, and the trace context is nothing the gateway reads.
     */
    private static WebClient webClient(Vertx vertx, PaymentGatewaySettings.Client client) {
        WebClientOptions options = new WebClientOptions();
        options.setConnectTimeout((int) client.connectTimeout().toMillis()).setKeepAlive(false).setFollowRedirects(false)
                .setTracingPolicy(TracingPolicy.IGNORE);
        HttpClient http = vertx.httpClientBuilder().with(options).with(new PoolOptions().setHttp1MaxSize(32))
                .withConnectHandler(connection -> connection.exceptionHandler(error -> LOG.debugf("gateway connection failed: %s", error)))
                .build();
        return WebClient.wrap(http, options);
    }

    @PreDestroy
    void close() {
        paymentClient.close();
        queryClient.close();
    }
}
