package dev.umbra.devstack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A stand-in for a card payment gateway with recurring billing: issue a billing key from the auth key
 * of a card registration ({@code POST /v1/billing/authorizations/issue}), charge it
 * ({@code POST /v1/billing/{billingKey}}, honouring {@code Idempotency-Key} as real gateways do: the same key is
 * the same payment and gets its answer again, a decline included; the key with another order or amount is refused),
 * look a payment up by its key ({@code GET /v1/payments/{paymentKey}}), list the payments of an order
 * ({@code GET /v1/payments?orderId=}) and cancel one, whole or in part ({@code POST /v1/payments/{paymentKey}/cancel
 * {cancelReason, cancelAmount?}}, honouring {@code Idempotency-Key}: the same key on the same payment is the same cancel;
 * a payment reports its {@code balanceAmount} and its {@code cancels}, each with the key that asked for it).
 * Calls authenticate with HTTP Basic (the secret key as user name). Every change of a payment is also
 * sent to the callback URL, signed with HMAC-SHA256.
 *
 * <p>Its record of charges is the truth a "never charged twice" check reads. On request it plays
 * the gateway's failures, at HTTP level (500/429, a late answer while the charge still happens, a
 * reset after the charge, results that stay pending, lost/duplicated/late callbacks) and below it
 * (refused connections, connects that time out) through its {@link TcpFront}.
 */
public final class PaymentGatewaySandbox implements AutoCloseable {

    public static final String SIGNATURE_HEADER = "Payment-Gateway-Signature";
    public static final String TIMESTAMP_HEADER = "Payment-Gateway-Timestamp";

    public enum Status { IN_PROGRESS, DONE, ABORTED, PARTIAL_CANCELED, CANCELED }

    /**
     * A payment the gateway created: money was taken when its status is DONE. {@code amount} is what it charged,
     * {@code askedAmount} what the request asked: the same, unless {@link #chargeOtherAmount} played a gateway at fault.
     */
    public record Charge(String paymentKey, String orderId, String idempotencyKey, String billingKey, long amount, long askedAmount,
            Status status, Instant requestedAt) {

        /** The charge took money, whatever was given back of it since. */
        public boolean tookMoney() {
            return status == Status.DONE || status == Status.PARTIAL_CANCELED || status == Status.CANCELED;
        }
    }

    /** Money given back from a paid payment: the record a "never refunded more than was paid" check reads. */
    public record Cancel(String transactionKey, String paymentKey, String idempotencyKey, long amount, String reason, Instant at) {
    }

    /** A call that reached the gateway's API, whatever was answered. */
    public record Received(String method, String path, String idempotencyKey, Instant at) {
        public boolean isCharge() {
            return method.equals("POST") && path.startsWith("/v1/billing/") && !path.endsWith("/issue");
        }

        public boolean isCancel() {
            return method.equals("POST") && path.startsWith("/v1/payments/") && path.endsWith("/cancel");
        }
    }

    /** A callback sent (or, when lost, not sent) for a change of a payment. */
    public record Callback(String paymentKey, Status status, boolean delivered, int answer) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CALLBACKS = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final HttpServer server;
    private final TcpFront front;
    private final String secretKey;
    private final String callbackSecret;
    private final AtomicReference<String> callbackUrl = new AtomicReference<>();
    private final ScheduledExecutorService later;
    private final Map<String, String> billingKeys = new ConcurrentHashMap<>();
    private final Map<String, Charge> charges = new ConcurrentHashMap<>();
    private final List<String> chargeOrder = new CopyOnWriteArrayList<>();
    private final Map<String, String> paymentsByIdempotencyKey = new ConcurrentHashMap<>();
    private final Map<String, List<Cancel>> cancels = new ConcurrentHashMap<>();
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final List<Callback> callbacks = new CopyOnWriteArrayList<>();
    private final Faults faults = new Faults();

    private PaymentGatewaySandbox(HttpServer server, InetSocketAddress api, String secretKey, String callbackSecret) {
        this.server = server;
        this.secretKey = secretKey;
        this.callbackSecret = callbackSecret;
        this.front = TcpFront.start(api, server.getAddress().getPort(), "payment-gateway-front");
        this.later = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "payment-gateway-callbacks");
            thread.setDaemon(true);
            return thread;
        });
    }

    static PaymentGatewaySandbox start() {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        // the faulty front's port is let go while it refuses connections: below the ephemeral range, no
        // outgoing connection can take it meanwhile and keep the front from coming back
        for (int attempt = 1; ; attempt++) {
            try {
                return start(new InetSocketAddress(loopback, Ports.free()), new InetSocketAddress(loopback, 0), "test_sk_" + randomHex(16),
                        randomHex(32));
            } catch (UncheckedIOException taken) {
                // a process that does not take its ports from Ports bound this one between the check and the bind
                if (!(taken.getCause() instanceof BindException) || attempt == 3) {
                    throw taken;
                }
            }
        }
    }

    /**
     * A sandbox whose API (with its faulty front) listens on {@code api} and whose controls, the same
     * server without the front, on {@code control}; port 0 takes a free one.
     */
    public static PaymentGatewaySandbox start(InetSocketAddress api, InetSocketAddress control, String secretKey, String callbackSecret) {
        try {
            HttpServer server = HttpServer.create(control, 0);
            PaymentGatewaySandbox sandbox;
            try {
                sandbox = new PaymentGatewaySandbox(server, api, secretKey, callbackSecret);
            } catch (RuntimeException frontNotStarted) {
                server.stop(0);
                throw frontNotStarted;
            }
            server.createContext("/v1/", sandbox::handle);
            server.createContext("/sandbox/", sandbox::control);
            server.setExecutor(Executors.newCachedThreadPool(r -> {
                Thread thread = new Thread(r, "payment-gateway-sandbox");
                thread.setDaemon(true);
                return thread;
            }));
            server.start();
            return sandbox;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where clients call the gateway; connection faults are played here. */
    public String url() {
        return "http://127.0.0.1:" + front.port();
    }

    /** The same server without the faulty front: the {@code /sandbox/} controls stay reachable while calls are refused. */
    public String controlUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The API secret key; clients send {@code Authorization: Basic base64(secretKey + ":")}. */
    public String secretKey() {
        return secretKey;
    }

    /** The key of the HMAC-SHA256 that signs every callback. */
    public String callbackSecret() {
        return callbackSecret;
    }

    public void callbackUrl(String url) {
        callbackUrl.set(url);
    }

    /**
     * No more callbacks: one on its way is let finish before this returns, so that what it causes at the
     * receiver happens before, not during, whatever the caller does next; late ones still waiting are
     * dropped when they fall due, unless a callback URL is set again by then.
     */
    public void stopCallingBack() {
        callbackUrl(null);
        try {
            later.submit(() -> { }).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("a callback still on its way after 10 s", e);
        }
    }

    /** Every payment the gateway created, oldest first, with its current status. */
    public List<Charge> charges() {
        return chargeOrder.stream().map(charges::get).toList();
    }

    public List<Charge> chargesOf(String orderId) {
        return charges().stream().filter(c -> c.orderId().equals(orderId)).toList();
    }

    /** Every call that reached the API, the failed ones too; connection faults never reach it. */
    public List<Received> received() {
        return List.copyOf(received);
    }

    public long chargeAttempts() {
        return received.stream().filter(Received::isCharge).count();
    }

    /** What the gateway keeps of the charges that took money, by idempotency key: their amounts less what it gave back. */
    public Map<String, Long> keptByIdempotencyKey() {
        Map<String, Long> kept = new HashMap<>();
        for (Charge charge : charges()) {
            if (charge.idempotencyKey() != null && charge.tookMoney()) {
                long givenBack = cancelsOf(charge.paymentKey()).stream().mapToLong(Cancel::amount).sum();
                kept.merge(charge.idempotencyKey(), charge.amount() - givenBack, Long::sum);
            }
        }
        return kept;
    }

    /** The cancels of a payment, oldest first. */
    public List<Cancel> cancelsOf(String paymentKey) {
        return List.copyOf(cancels.getOrDefault(paymentKey, List.of()));
    }

    /** Cancel requests that reached the API, the failed ones too. */
    public long cancelAttempts() {
        return received.stream().filter(Received::isCancel).count();
    }

    public List<Callback> callbacks() {
        return List.copyOf(callbacks);
    }

    /** The next {@code count} API calls answer {@code status} (500 or 429) and change nothing. */
    public void failNext(int count, int status) {
        faults.httpStatus.set(status);
        faults.failures.set(count);
    }

    /**
     * The next {@code count} charge requests (-1: until {@link #recover()}) are carried out, or answered again for a key
     * already used, and then answer {@code status} (500 or 429) as if nothing was done: a gateway breaking its own contract.
     */
    public void failAfterCharge(int count, int status) {
        faults.httpStatus.set(status);
        faults.failuresAfterCharge.set(count < 0 ? Integer.MAX_VALUE : count);
    }

    /** As {@link #failAfterCharge}, until {@link #recover()}, for the charges of this customer's billing keys only. */
    public void failAfterChargeOf(String customerKey, int status) {
        faults.httpStatus.set(status);
        faults.failingAfterCharge.add(customerKey);
    }

    /** Until {@link #recover()}, the charges of this customer's billing keys answer {@code status} (500 or 429) and change nothing. */
    public void failChargesOf(String customerKey, int status) {
        faults.httpStatus.set(status);
        faults.failingCharges.add(customerKey);
    }

    /** From now on, this share of API calls (0..1) answers {@code status} and changes nothing. */
    public void failRatio(double ratio, int status) {
        faults.httpStatus.set(status);
        faults.failureRatio.set(ratio);
    }

    /** Nobody listens on the gateway's port until {@link #recover()}: connects are refused. */
    public void refuseConnections() {
        front.mode(TcpFront.Mode.REFUSE);
    }

    /** The gateway's port takes no new connection until {@link #recover()}: connects time out. */
    public void dropConnections() {
        front.mode(TcpFront.Mode.DROP);
    }

    /** The next {@code count} charges happen, but their answer comes only after {@code delay}. */
    public void answerLate(int count, Duration delay) {
        faults.lateAnswerDelay.set(delay);
        faults.lateAnswers.set(count);
    }

    /** The next {@code count} charges happen, then their connection is reset before any answer. */
    public void resetAfterCharge(int count) {
        faults.resets.set(count);
    }

    /** As {@link #resetAfterCharge}, until {@link #recover()}, for the charges of this customer's billing keys only. */
    public void resetAfterChargeOf(String customerKey) {
        faults.resettingAfterCharge.add(customerKey);
    }

    /** The next {@code count} cancels happen, but their answer comes only after {@code delay}. */
    public void answerCancelLate(int count, Duration delay) {
        faults.lateCancelDelay.set(delay);
        faults.lateCancels.set(count);
    }

    /** The next {@code count} cancels happen, then their connection is reset before any answer. */
    public void resetAfterCancel(int count) {
        faults.cancelResets.set(count);
    }

    /**
     * The next {@code count} cancels are carried out, then answered 409, as a gateway answers a request while another with
     * the same idempotency key is being processed (two replicas sending one cancel at once).
     */
    public void answerCancelInFlight(int count) {
        faults.cancelsInFlight.set(count);
    }

    /**
     * The next {@code count} cancel requests are carried out, or answered again for a key already used, and then answer
     * {@code status} (500 or 429) as if nothing was done: a gateway breaking its own contract.
     */
    public void failAfterCancel(int count, int status) {
        faults.httpStatus.set(status);
        faults.failuresAfterCancel.set(count);
    }

    /** The next {@code count} cancels are refused (403, nothing given back), as a gateway does for a payment it will not touch. */
    public void refuseCancels(int count) {
        faults.refusedCancels.set(count);
    }

    /** The next {@code count} charges stay IN_PROGRESS (no callback) until {@link #settle}. */
    public void keepPending(int count) {
        faults.pending.set(count);
    }

    /** The next {@code count} charges take {@code difference} more than asked and say so in their {@code totalAmount}: a gateway at fault. */
    public void chargeOtherAmount(int count, long difference) {
        faults.otherAmountDifference.set(difference);
        faults.otherAmounts.set(count);
    }

    /** The next {@code count} charges are declined by the card issuer (ABORTED). */
    public void decline(int count) {
        faults.declines.set(count);
    }

    /** Until {@link #recover()}, every charge of this customer's billing keys is declined (ABORTED): a card that keeps failing. */
    public void declineCustomer(String customerKey) {
        faults.declinedCustomers.add(customerKey);
    }

    public void loseCallbacks(int count) {
        faults.lostCallbacks.set(count);
    }

    public void duplicateCallbacks(int count) {
        faults.duplicatedCallbacks.set(count);
    }

    public void delayCallbacks(int count, Duration delay) {
        faults.callbackDelay.set(delay);
        faults.lateCallbacks.set(count);
    }

    /**
     * Until {@link #recover()}, every call that asks the gateway to act (issue a key, charge, cancel) is
     * answered after a delay drawn from a log-normal distribution with this median and 99th percentile, as
     * a real gateway's latency spreads; a draw beyond the client's read timeout is an answer that never came
     * in time. Look-ups have their own ({@link #answerLookupsAfter}).
     */
    public void respondAfter(Duration median, Duration p99) {
        faults.latency.set(new Latency(median, p99));
    }

    /** As {@link #respondAfter}, for the look-ups of payments (GET), which gateways answer faster than the calls that act. */
    public void answerLookupsAfter(Duration median, Duration p99) {
        faults.lookupLatency.set(new Latency(median, p99));
    }

    /** Ends every fault; payments kept pending stay so until settled. */
    public void recover() {
        faults.clear();
        front.mode(TcpFront.Mode.ACCEPT);
    }

    /** Gives a pending payment its result, as the card issuer eventually does, and calls back. */
    public void settle(String paymentKey, Status status) {
        Charge settled = charges.computeIfPresent(paymentKey, (key, c) -> c.status() == Status.IN_PROGRESS ? withStatus(c, status) : c);
        if (settled != null && settled.status() == status) {
            callBack(settled);
        }
    }

    /** Clears payments, records and faults between tests; keys and billing keys stay. */
    public void reset() {
        recover();
        charges.clear();
        chargeOrder.clear();
        paymentsByIdempotencyKey.clear();
        cancels.clear();
        received.clear();
        callbacks.clear();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getPath();
        String idempotencyKey = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        if (!authorized(exchange)) {
            respond(exchange, 401, error("UNAUTHORIZED_KEY", "the secret key is not valid"));
            return;
        }
        received.add(new Received(method, path, idempotencyKey, Instant.now()));
        Latency latency = "GET".equals(method) ? faults.lookupLatency.get() : faults.latency.get();
        if (latency != null) {
            sleep(latency.draw(ThreadLocalRandom.current().nextGaussian()));
        }
        if (faults.failsNow()) {
            int status = faults.httpStatus.get();
            respond(exchange, status, error(status == 429 ? "TOO_MANY_REQUESTS" : "FAILED_INTERNAL_SYSTEM_PROCESSING", "try again"));
            return;
        }
        JsonNode body = "POST".equals(method) ? readBody(exchange) : JSON.createObjectNode();
        if (body == null) {
            respond(exchange, 400, error("INVALID_REQUEST", "the body is not JSON"));
        } else if ("POST".equals(method) && path.equals("/v1/billing/authorizations/issue")) {
            issueBillingKey(exchange, body);
        } else if ("POST".equals(method) && path.matches("/v1/billing/[^/]+")) {
            charge(exchange, path.substring("/v1/billing/".length()), idempotencyKey, body);
        } else if ("GET".equals(method) && path.matches("/v1/payments/[^/]+")) {
            Charge charge = charges.get(path.substring("/v1/payments/".length()));
            respond(exchange, charge == null ? 404 : 200, charge == null ? error("NOT_FOUND_PAYMENT", "no such payment") : payment(charge));
        } else if ("GET".equals(method) && path.equals("/v1/payments")) {
            String orderId = query(exchange, "orderId");
            respond(exchange, 200, JSON.valueToTree(chargesOf(orderId == null ? "" : orderId).stream().map(this::payment).toList()));
        } else if ("POST".equals(method) && path.matches("/v1/payments/[^/]+/cancel")) {
            cancel(exchange, path.substring("/v1/payments/".length(), path.lastIndexOf('/')), idempotencyKey, body);
        } else {
            respond(exchange, 404, error("NOT_FOUND", "no such endpoint"));
        }
    }

    private void issueBillingKey(HttpExchange exchange, JsonNode body) throws IOException {
        String authKey = body.path("authKey").asText("");
        String customerKey = body.path("customerKey").asText("");
        if (authKey.isBlank() || customerKey.isBlank()) {
            respond(exchange, 400, error("INVALID_REQUEST", "authKey and customerKey are required"));
            return;
        }
        String billingKey = "bk_" + randomHex(16);
        billingKeys.put(billingKey, customerKey);
        String lastDigits = String.format("%03d", Math.floorMod(authKey.hashCode(), 1000));
        respond(exchange, 200, JSON.createObjectNode().put("billingKey", billingKey).put("customerKey", customerKey)
                .set("card", JSON.createObjectNode().put("number", "4330-12**-****-" + lastDigits + "*").put("issuer", "SANDBOX CARD")));
    }

    private void charge(HttpExchange exchange, String billingKey, String idempotencyKey, JsonNode body) throws IOException {
        String customerKey = billingKeys.get(billingKey);
        long amount = body.path("amount").asLong(0);
        String orderId = body.path("orderId").asText("");
        if (customerKey == null || !customerKey.equals(body.path("customerKey").asText())) {
            respond(exchange, 404, error("NOT_FOUND_BILLING_KEY", "no such billing key for this customer"));
            return;
        }
        if (amount <= 0 || orderId.isBlank()) {
            respond(exchange, 400, error("INVALID_REQUEST", "amount and orderId are required"));
            return;
        }
        if (faults.failingCharges.contains(customerKey)) {
            int status = faults.httpStatus.get();
            respond(exchange, status, error(status == 429 ? "TOO_MANY_REQUESTS" : "FAILED_INTERNAL_SYSTEM_PROCESSING", "try again"));
            return;
        }
        boolean declined = faults.declinedCustomers.contains(customerKey);
        Charge charge = idempotencyKey == null ? create(billingKey, null, orderId, amount, declined)
                : charges.get(paymentsByIdempotencyKey.computeIfAbsent(idempotencyKey,
                        key -> create(billingKey, key, orderId, amount, declined).paymentKey()));
        if (!charge.orderId().equals(orderId) || charge.askedAmount() != amount) {
            respond(exchange, 422, error("IDEMPOTENCY_KEY_REUSED", "the Idempotency-Key was used for another order or amount"));
            return;
        }
        if (faults.resettingAfterCharge.contains(customerKey) || faults.take(faults.resets)) {
            front.reset(exchange.getRemoteAddress().getPort());
            exchange.close();
            return;
        }
        if (faults.take(faults.lateAnswers)) {
            sleep(faults.lateAnswerDelay.get());
        }
        if (faults.failingAfterCharge.contains(customerKey) || faults.take(faults.failuresAfterCharge)) {
            respond(exchange, faults.httpStatus.get(), error("FAILED_INTERNAL_SYSTEM_PROCESSING", "an error after the charge was made"));
            return;
        }
        try {
            respond(exchange, 200, payment(charges.get(charge.paymentKey())));
        } catch (IOException e) {
            // the client gave up waiting: the charge stands, as with a real gateway
        }
    }

    private Charge create(String billingKey, String idempotencyKey, String orderId, long amount, boolean declined) {
        String paymentKey = "pay_" + UUID.randomUUID().toString().replace("-", "");
        Status status = faults.take(faults.pending) ? Status.IN_PROGRESS
                : declined || faults.take(faults.declines) ? Status.ABORTED : Status.DONE;
        long charged = status == Status.DONE && faults.take(faults.otherAmounts) ? amount + faults.otherAmountDifference.get() : amount;
        Charge charge = new Charge(paymentKey, orderId, idempotencyKey, billingKey, charged, amount, status, Instant.now());
        charges.put(paymentKey, charge);
        chargeOrder.add(paymentKey);
        if (status != Status.IN_PROGRESS) {
            callBack(charge);
        }
        return charge;
    }

    /**
     * Gives back {@code cancelAmount} (the whole balance when absent) of a paid payment. The same
     * idempotency key on the same payment is the same cancel: answered again, nothing given back twice.
     * A cancel of more than the balance is refused; a payment with nothing left becomes CANCELED.
     */
    private void cancel(HttpExchange exchange, String paymentKey, String idempotencyKey, JsonNode body) throws IOException {
        Charge after;
        synchronized (cancels) {
            Charge before = charges.get(paymentKey);
            if (before == null) {
                respond(exchange, 404, error("NOT_FOUND_PAYMENT", "no such payment"));
                return;
            }
            if (faults.take(faults.refusedCancels)) {
                respond(exchange, 403, error("FORBIDDEN_REQUEST", "this payment cannot be canceled by the merchant"));
                return;
            }
            List<Cancel> earlier = cancels.getOrDefault(paymentKey, List.of());
            boolean repeated = idempotencyKey != null && earlier.stream().anyMatch(c -> idempotencyKey.equals(c.idempotencyKey()));
            boolean wholeAgain = before.status() == Status.CANCELED && !body.has("cancelAmount");
            if (!repeated && !wholeAgain) {
                if (before.status() != Status.DONE && before.status() != Status.PARTIAL_CANCELED) {
                    respond(exchange, 400, error("NOT_CANCELABLE_PAYMENT", "only a paid payment can be canceled"));
                    return;
                }
                long balance = balance(before);
                long amount = body.path("cancelAmount").asLong(balance);
                if (amount <= 0 || amount > balance) {
                    respond(exchange, 400, error("NOT_CANCELABLE_AMOUNT", "the amount to cancel must be between 1 and the balance " + balance));
                    return;
                }
                List<Cancel> more = new ArrayList<>(earlier);
                more.add(new Cancel("tx_" + randomHex(12), paymentKey, idempotencyKey, amount, body.path("cancelReason").asText(""), Instant.now()));
                cancels.put(paymentKey, List.copyOf(more));
                Charge canceled = withStatus(before, amount == balance ? Status.CANCELED : Status.PARTIAL_CANCELED);
                charges.put(paymentKey, canceled);
                callBack(canceled);
            }
            after = charges.get(paymentKey);
        }
        if (faults.take(faults.failuresAfterCancel)) {
            respond(exchange, faults.httpStatus.get(), error("FAILED_INTERNAL_SYSTEM_PROCESSING", "an error after the cancel was made"));
            return;
        }
        if (faults.take(faults.cancelsInFlight)) {
            respond(exchange, 409, error("ALREADY_PROCESSING_REQUEST", "a request with this idempotency key is being processed"));
            return;
        }
        if (faults.take(faults.cancelResets)) {
            front.reset(exchange.getRemoteAddress().getPort());
            exchange.close();
            return;
        }
        if (faults.take(faults.lateCancels)) {
            sleep(faults.lateCancelDelay.get());
        }
        try {
            respond(exchange, 200, payment(after));
        } catch (IOException e) {
            // the client gave up waiting: the cancel stands, as with a real gateway
        }
    }

    private long balance(Charge charge) {
        return charge.amount() - cancels.getOrDefault(charge.paymentKey(), List.of()).stream().mapToLong(Cancel::amount).sum();
    }

    private void callBack(Charge charge) {
        if (faults.take(faults.lostCallbacks)) {
            callbacks.add(new Callback(charge.paymentKey(), charge.status(), false, 0));
            return;
        }
        int copies = faults.take(faults.duplicatedCallbacks) ? 2 : 1;
        long delay = faults.take(faults.lateCallbacks) ? faults.callbackDelay.get().toMillis() : 0;
        for (int i = 0; i < copies; i++) {
            later.schedule(() -> deliver(charge), delay, TimeUnit.MILLISECONDS);
        }
    }

    private void deliver(Charge charge) {
        String url = callbackUrl.get();
        if (url == null) {
            callbacks.add(new Callback(charge.paymentKey(), charge.status(), false, 0));
            return;
        }
        String body = JSON.createObjectNode().put("eventType", "PAYMENT_STATUS_CHANGED").set("data", payment(charge)).toString();
        String timestamp = Long.toString(Instant.now().getEpochSecond());
        try {
            HttpResponse<Void> answer = CALLBACKS.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5))
                    .header("Content-Type", "application/json")
                    .header(TIMESTAMP_HEADER, timestamp)
                    .header(SIGNATURE_HEADER, "v1=" + sign(timestamp + "." + body))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.discarding());
            callbacks.add(new Callback(charge.paymentKey(), charge.status(), true, answer.statusCode()));
        } catch (IOException e) {
            callbacks.add(new Callback(charge.paymentKey(), charge.status(), false, 0));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** HMAC-SHA256 of {@code timestamp + "." + body} with the callback secret, hex encoded. */
    public String sign(String payload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(callbackSecret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(payload.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * For people trying the local system: {@code GET /sandbox/charges}, {@code /sandbox/requests},
     * {@code /sandbox/callbacks}, {@code /sandbox/cancels}; {@code POST /sandbox/faults {"mode": ..., "count": n, "status": 500|429,
     * "ratio": 0.3, "delayMs": n, "customerKey": ..., "difference": n}} with mode fail, fail-after-charge, fail-ratio, refuse, drop, late-answer, reset, late-cancel-answer, cancel-reset,
     * refuse-cancels, pending, other-amount, decline, decline-customer, lose-callbacks, duplicate-callbacks, late-callbacks or none; {@code POST /sandbox/callback-url
     * {"url": ...}}; {@code POST /sandbox/payments/{paymentKey}/settle {"status": "DONE"|"ABORTED"}}.
     */
    private void control(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getPath();
        if ("GET".equals(method) && path.equals("/sandbox/charges")) {
            respond(exchange, 200, JSON.valueToTree(charges().stream().map(c -> payment(c).put("idempotencyKey", c.idempotencyKey())).toList()));
        } else if ("GET".equals(method) && path.equals("/sandbox/cancels")) {
            respond(exchange, 200, JSON.valueToTree(cancels.values().stream().flatMap(List::stream).toList()));
        } else if ("GET".equals(method) && path.equals("/sandbox/requests")) {
            respond(exchange, 200, JSON.valueToTree(received().stream().map(r -> Map.of("method", r.method(), "path", r.path(),
                    "at", r.at().toString())).toList()));
        } else if ("GET".equals(method) && path.equals("/sandbox/callbacks")) {
            respond(exchange, 200, JSON.valueToTree(callbacks().stream().map(c -> Map.of("paymentKey", c.paymentKey(),
                    "status", c.status().name(), "delivered", c.delivered(), "answer", c.answer())).toList()));
        } else if ("POST".equals(method) && path.equals("/sandbox/faults")) {
            JsonNode body = readBody(exchange);
            if (body == null || !applyFault(body)) {
                respond(exchange, 400, error("INVALID_REQUEST", "unknown fault"));
                return;
            }
            respond(exchange, 200, body);
        } else if ("POST".equals(method) && path.equals("/sandbox/callback-url")) {
            JsonNode body = readBody(exchange);
            callbackUrl(body == null ? null : body.path("url").asText(null));
            respond(exchange, 200, JSON.createObjectNode().put("url", callbackUrl.get()));
        } else if ("POST".equals(method) && path.matches("/sandbox/payments/[^/]+/settle")) {
            JsonNode body = readBody(exchange);
            String paymentKey = path.substring("/sandbox/payments/".length(), path.lastIndexOf('/'));
            settle(paymentKey, Status.valueOf(body == null ? "DONE" : body.path("status").asText("DONE")));
            Charge charge = charges.get(paymentKey);
            respond(exchange, charge == null ? 404 : 200, charge == null ? error("NOT_FOUND_PAYMENT", "no such payment") : payment(charge));
        } else {
            respond(exchange, 404, error("NOT_FOUND", "no such endpoint"));
        }
    }

    private boolean applyFault(JsonNode body) {
        int count = body.path("count").asInt(-1);
        int times = count < 0 ? Integer.MAX_VALUE : count;
        int status = body.path("status").asInt(500);
        Duration delay = Duration.ofMillis(body.path("delayMs").asLong(3000));
        switch (body.path("mode").asText("none")) {
            case "fail" -> failNext(times, status);
            case "fail-after-charge" -> failAfterCharge(times, status);
            case "fail-ratio" -> failRatio(body.path("ratio").asDouble(0.5), status);
            case "refuse" -> refuseConnections();
            case "drop" -> dropConnections();
            case "late-answer" -> answerLate(times, delay);
            case "reset" -> resetAfterCharge(times);
            case "late-cancel-answer" -> answerCancelLate(times, delay);
            case "cancel-reset" -> resetAfterCancel(times);
            case "refuse-cancels" -> refuseCancels(times);
            case "pending" -> keepPending(times);
            case "decline" -> decline(times);
            case "other-amount" -> chargeOtherAmount(times, body.path("difference").asLong(100));
            case "decline-customer" -> declineCustomer(body.path("customerKey").asText(""));
            case "lose-callbacks" -> loseCallbacks(times);
            case "duplicate-callbacks" -> duplicateCallbacks(times);
            case "late-callbacks" -> delayCallbacks(times, delay);
            case "none" -> recover();
            default -> {
                return false;
            }
        }
        return true;
    }

    private boolean authorized(HttpExchange exchange) {
        String expected = "Basic " + Base64.getEncoder().encodeToString((secretKey + ":").getBytes(StandardCharsets.UTF_8));
        return expected.equals(exchange.getRequestHeaders().getFirst("Authorization"));
    }

    private ObjectNode payment(Charge charge) {
        ObjectNode payment = JSON.createObjectNode().put("paymentKey", charge.paymentKey()).put("orderId", charge.orderId())
                .put("status", charge.status().name()).put("totalAmount", charge.amount()).put("balanceAmount", balance(charge))
                .put("requestedAt", charge.requestedAt().toString());
        var canceled = payment.putArray("cancels");
        cancels.getOrDefault(charge.paymentKey(), List.of()).forEach(c -> canceled.addObject().put("transactionKey", c.transactionKey())
                .put("cancelAmount", c.amount()).put("cancelReason", c.reason()).put("canceledAt", c.at().toString())
                .put("idempotencyKey", c.idempotencyKey()));
        return payment;
    }

    private static Charge withStatus(Charge charge, Status status) {
        return new Charge(charge.paymentKey(), charge.orderId(), charge.idempotencyKey(), charge.billingKey(), charge.amount(), charge.askedAmount(),
                status, charge.requestedAt());
    }

    private static JsonNode readBody(HttpExchange exchange) {
        try {
            byte[] bytes = exchange.getRequestBody().readAllBytes();
            return bytes.length == 0 ? JSON.createObjectNode() : JSON.readTree(bytes);
        } catch (IOException e) {
            return null;
        }
    }

    private static String query(HttpExchange exchange, String name) {
        String query = exchange.getRequestURI().getQuery();
        if (query == null) {
            return null;
        }
        for (String pair : query.split("&")) {
            if (pair.startsWith(name + "=")) {
                return pair.substring(name.length() + 1);
            }
        }
        return null;
    }

    private static JsonNode error(String code, String message) {
        return JSON.createObjectNode().put("code", code).put("message", message);
    }

    private static void respond(HttpExchange exchange, int status, JsonNode json) throws IOException {
        try (exchange) {
            byte[] bytes = JSON.writeValueAsBytes(json);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
        }
    }

    private static String randomHex(int bytes) {
        byte[] random = new byte[bytes];
        new SecureRandom().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        front.close();
        later.shutdownNow();
        server.stop(0);
    }

    /** Faults armed for the next n calls; a count of Integer.MAX_VALUE lasts until cleared. */
    private static final class Faults {
        final AtomicInteger httpStatus = new AtomicInteger(500);
        final AtomicInteger failures = new AtomicInteger();
        final AtomicReference<Double> failureRatio = new AtomicReference<>(0.0);
        final AtomicInteger lateAnswers = new AtomicInteger();
        final AtomicReference<Duration> lateAnswerDelay = new AtomicReference<>(Duration.ZERO);
        final AtomicInteger resets = new AtomicInteger();
        final AtomicInteger lateCancels = new AtomicInteger();
        final AtomicReference<Duration> lateCancelDelay = new AtomicReference<>(Duration.ZERO);
        final AtomicInteger cancelResets = new AtomicInteger();
        final AtomicInteger refusedCancels = new AtomicInteger();
        final AtomicInteger cancelsInFlight = new AtomicInteger();
        final AtomicInteger pending = new AtomicInteger();
        final AtomicInteger declines = new AtomicInteger();
        final AtomicInteger otherAmounts = new AtomicInteger();
        final AtomicInteger failuresAfterCharge = new AtomicInteger();
        final AtomicInteger failuresAfterCancel = new AtomicInteger();
        final AtomicLong otherAmountDifference = new AtomicLong();
        final AtomicInteger lostCallbacks = new AtomicInteger();
        final AtomicInteger duplicatedCallbacks = new AtomicInteger();
        final AtomicInteger lateCallbacks = new AtomicInteger();
        final AtomicReference<Duration> callbackDelay = new AtomicReference<>(Duration.ZERO);
        final Set<String> declinedCustomers = ConcurrentHashMap.newKeySet();
        final Set<String> failingAfterCharge = ConcurrentHashMap.newKeySet();
        final Set<String> failingCharges = ConcurrentHashMap.newKeySet();
        final Set<String> resettingAfterCharge = ConcurrentHashMap.newKeySet();
        final AtomicReference<Latency> latency = new AtomicReference<>();
        final AtomicReference<Latency> lookupLatency = new AtomicReference<>();

        boolean failsNow() {
            return take(failures) || ThreadLocalRandom.current().nextDouble() < failureRatio.get();
        }

        boolean take(AtomicInteger counter) {
            return counter.getAndUpdate(n -> n == Integer.MAX_VALUE ? n : Math.max(0, n - 1)) > 0;
        }

        void clear() {
            List.of(failures, lateAnswers, resets, lateCancels, cancelResets, refusedCancels, cancelsInFlight, pending, declines, otherAmounts, lostCallbacks,
                    duplicatedCallbacks, lateCallbacks, failuresAfterCharge, failuresAfterCancel)
                    .forEach(counter -> counter.set(0));
            failureRatio.set(0.0);
            declinedCustomers.clear();
            failingAfterCharge.clear();
            failingCharges.clear();
            resettingAfterCharge.clear();
            latency.set(null);
            lookupLatency.set(null);
        }
    }

    /** A log-normal delay: {@code median · e^(σz)}, σ chosen so that z at the 99th percentile (2.326) gives {@code p99}. */
    record Latency(Duration median, Duration p99) {

        private static final double Z_99 = 2.3263;

        Latency {
            if (median.isNegative() || median.isZero() || p99.compareTo(median) < 0) {
                throw new IllegalArgumentException("a latency wants 0 < median <= p99, not " + median + " and " + p99);
            }
        }

        Duration draw(double standardNormal) {
            double sigma = Math.log((double) p99.toNanos() / median.toNanos()) / Z_99;
            return Duration.ofNanos(Math.round(median.toNanos() * Math.exp(sigma * standardNormal)));
        }
    }
}
