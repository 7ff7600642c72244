package dev.umbra.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.umbra.devstack.PaymentGatewaySandbox.Status;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PaymentGatewaySandboxTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final PaymentGatewaySandbox sandbox = PaymentGatewaySandbox.start();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

    @AfterEach
    void stop() {
        sandbox.close();
    }

    @Test
    void chargesABillingKeyOncePerIdempotencyKeyEvenUnderConcurrency() throws Exception {
        String billingKey = issueBillingKey("customer-1");
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<HttpResponse<String>>> answers = IntStream.range(0, 8)
                    .mapToObj(i -> pool.submit(() -> charge(billingKey, "customer-1", "order-1", "idem-1", 9_900)))
                    .toList();
            List<String> paymentKeys = new CopyOnWriteArrayList<>();
            for (Future<HttpResponse<String>> answer : answers) {
                assertThat(answer.get().statusCode()).isEqualTo(200);
                paymentKeys.add(JSON.readTree(answer.get().body()).path("paymentKey").asText());
            }
            assertThat(paymentKeys).containsOnly(paymentKeys.get(0));
        } finally {
            pool.shutdownNow();
        }

        assertThat(sandbox.charges()).singleElement().satisfies(c -> {
            assertThat(c.status()).isEqualTo(Status.DONE);
            assertThat(c.amount()).isEqualTo(9_900);
        });
        assertThat(sandbox.chargeAttempts()).isEqualTo(8);
        String paymentKey = sandbox.charges().get(0).paymentKey();
        assertThat(get("/v1/payments/" + paymentKey).path("status").asText()).isEqualTo("DONE");
        assertThat(get("/v1/payments?orderId=order-1")).hasSize(1);
        assertThat(post("/v1/payments/" + paymentKey + "/cancel", "{\"cancelReason\":\"test\"}", null).statusCode()).isEqualTo(200);
        assertThat(sandbox.charges().get(0).status()).isEqualTo(Status.CANCELED);
    }

    @Test
    void aKeyGetsItsFirstAnswerAgainADeclineIncludedAndNothingElse() throws Exception {
        String billingKey = issueBillingKey("customer-5");
        sandbox.decline(1);
        HttpResponse<String> declined = charge(billingKey, "customer-5", "order-1", "attempt-1", 9_900);
        assertThat(JSON.readTree(declined.body()).path("status").asText()).isEqualTo("ABORTED");

        // as real gateways keep the first answer to a key: the same request again is the same declined payment
        HttpResponse<String> again = charge(billingKey, "customer-5", "order-1", "attempt-1", 9_900);
        assertThat(key(again)).isEqualTo(key(declined));
        assertThat(JSON.readTree(again.body()).path("status").asText()).isEqualTo("ABORTED");
        // the key for another order or amount is refused, and charges nothing
        HttpResponse<String> reused = charge(billingKey, "customer-5", "order-2", "attempt-1", 9_900);
        assertThat(reused.statusCode()).isEqualTo(422);
        assertThat(JSON.readTree(reused.body()).path("code").asText()).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(charge(billingKey, "customer-5", "order-1", "attempt-1", 4_900).statusCode()).isEqualTo(422);
        // a new attempt has a key of its own
        HttpResponse<String> retried = charge(billingKey, "customer-5", "order-2", "attempt-2", 9_900);
        assertThat(JSON.readTree(retried.body()).path("status").asText()).isEqualTo("DONE");

        assertThat(sandbox.charges()).extracting(PaymentGatewaySandbox.Charge::status).containsExactly(Status.ABORTED, Status.DONE);
        assertThat(sandbox.charges()).extracting(PaymentGatewaySandbox.Charge::idempotencyKey).containsExactly("attempt-1", "attempt-2");
    }

    @Test
    void aDeclinedCustomersCardsAreDeclinedUntilRecoveryAndNobodyElses() throws Exception {
        String failing = issueBillingKey("customer-6");
        String healthy = issueBillingKey("customer-7");
        sandbox.declineCustomer("customer-6");

        assertThat(JSON.readTree(charge(failing, "customer-6", "order-1", "p1-a1", 500).body()).path("status").asText()).isEqualTo("ABORTED");
        assertThat(JSON.readTree(charge(failing, "customer-6", "order-2", "p1-a2", 500).body()).path("status").asText()).isEqualTo("ABORTED");
        assertThat(JSON.readTree(charge(healthy, "customer-7", "order-3", "q1-a1", 500).body()).path("status").asText()).isEqualTo("DONE");
        sandbox.recover();
        assertThat(JSON.readTree(charge(failing, "customer-6", "order-4", "p1-a3", 500).body()).path("status").asText()).isEqualTo("DONE");
    }

    @Test
    void refusesCallsWithoutTheSecretKeyAndUnknownBillingKeys() throws Exception {
        HttpResponse<String> anonymous = http.send(HttpRequest.newBuilder(URI.create(sandbox.url() + "/v1/payments?orderId=x")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(charge("bk_unknown", "customer-1", "order-1", null, 100).statusCode()).isEqualTo(404);
        assertThat(sandbox.charges()).isEmpty();
    }

    @Test
    void signsEveryCallbackAndPlaysLostDuplicatedAndPendingResults() throws Exception {
        List<String> verified = new CopyOnWriteArrayList<>();
        HttpServer receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        receiver.createContext("/callback", exchange -> {
            try (exchange) {
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                String timestamp = exchange.getRequestHeaders().getFirst(PaymentGatewaySandbox.TIMESTAMP_HEADER);
                String signature = exchange.getRequestHeaders().getFirst(PaymentGatewaySandbox.SIGNATURE_HEADER);
                if (("v1=" + sandbox.sign(timestamp + "." + body)).equals(signature)) {
                    verified.add(JSON.readTree(body).path("data").path("paymentKey").asText());
                }
                exchange.sendResponseHeaders(200, -1);
            }
        });
        receiver.start();
        try {
            sandbox.callbackUrl("http://127.0.0.1:" + receiver.getAddress().getPort() + "/callback");
            String billingKey = issueBillingKey("customer-2");

            sandbox.duplicateCallbacks(1);
            String first = key(charge(billingKey, "customer-2", "order-a", "a", 1_000));
            await().until(() -> verified.size() == 2);
            assertThat(verified).containsExactly(first, first);

            sandbox.loseCallbacks(1);
            charge(billingKey, "customer-2", "order-b", "b", 1_000);
            assertThat(sandbox.callbacks()).filteredOn(c -> !c.delivered()).hasSize(1);

            sandbox.keepPending(1);
            String pending = key(charge(billingKey, "customer-2", "order-c", "c", 1_000));
            assertThat(get("/v1/payments/" + pending).path("status").asText()).isEqualTo("IN_PROGRESS");
            sandbox.settle(pending, Status.DONE);
            await().until(() -> verified.contains(pending));
            assertThat(verified).hasSize(3);
        } finally {
            receiver.stop(0);
        }
    }

    @Test
    void stoppingTheCallbacksWaitsForTheOneOnItsWayAndSendsNoMore() throws Exception {
        CountDownLatch arrived = new CountDownLatch(1);
        List<String> handled = new CopyOnWriteArrayList<>();
        HttpServer receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        receiver.createContext("/callback", exchange -> {
            try (exchange) {
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                arrived.countDown();
                // a receiver that takes its time, as a service applying a settlement does
                Thread.sleep(700);
                handled.add(JSON.readTree(body).path("data").path("paymentKey").asText());
                exchange.sendResponseHeaders(200, -1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        receiver.start();
        try {
            sandbox.callbackUrl("http://127.0.0.1:" + receiver.getAddress().getPort() + "/callback");
            String billingKey = issueBillingKey("customer-6");
            String first = key(charge(billingKey, "customer-6", "order-a", "a", 1_000));
            assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();

            sandbox.stopCallingBack();

            assertThat(handled).containsExactly(first);
            String second = key(charge(billingKey, "customer-6", "order-b", "b", 1_000));
            await().until(() -> sandbox.callbacks().stream().anyMatch(c -> c.paymentKey().equals(second)));
            assertThat(sandbox.callbacks()).filteredOn(c -> c.paymentKey().equals(second)).extracting(PaymentGatewaySandbox.Callback::delivered)
                    .containsExactly(false);
            assertThat(handled).containsExactly(first);
        } finally {
            receiver.stop(0);
        }
    }

    @Test
    void failsOnRequestWithoutCharging() throws Exception {
        String billingKey = issueBillingKey("customer-3");
        post("/sandbox/faults", "{\"mode\":\"fail\",\"count\":1,\"status\":429}", null);
        assertThat(charge(billingKey, "customer-3", "order-1", "k", 500).statusCode()).isEqualTo(429);
        sandbox.failNext(1, 500);
        assertThat(charge(billingKey, "customer-3", "order-1", "k", 500).statusCode()).isEqualTo(500);
        assertThat(sandbox.charges()).isEmpty();
        assertThat(charge(billingKey, "customer-3", "order-1", "k", 500).statusCode()).isEqualTo(200);
        assertThat(sandbox.charges()).hasSize(1);
        assertThat(sandbox.chargeAttempts()).isEqualTo(3);
    }

    @Test
    void aFailingCustomersChargesAnswer500WithoutChargingUntilRecoveryAndNobodyElses() throws Exception {
        String failing = issueBillingKey("customer-8");
        String healthy = issueBillingKey("customer-9");
        sandbox.failChargesOf("customer-8", 500);

        assertThat(charge(failing, "customer-8", "order-1", "r1-a1", 500).statusCode()).isEqualTo(500);
        assertThat(charge(healthy, "customer-9", "order-2", "s1-a1", 500).statusCode()).isEqualTo(200);
        assertThat(sandbox.charges()).extracting(PaymentGatewaySandbox.Charge::idempotencyKey).containsExactly("s1-a1");
        sandbox.recover();
        assertThat(charge(failing, "customer-8", "order-1", "r1-a1", 500).statusCode()).isEqualTo(200);
        assertThat(sandbox.charges()).extracting(PaymentGatewaySandbox.Charge::idempotencyKey).containsExactly("s1-a1", "r1-a1");
    }

    @Test
    void chargesEvenWhenTheAnswerComesTooLateOrTheConnectionIsReset() throws Exception {
        String billingKey = issueBillingKey("customer-4");
        sandbox.answerLate(1, Duration.ofSeconds(2));
        HttpRequest late = chargeRequest(billingKey, "customer-4", "order-late", "late", 700).timeout(Duration.ofMillis(300)).build();
        assertThatThrownBy(() -> http.send(late, HttpResponse.BodyHandlers.ofString())).isInstanceOf(HttpTimeoutException.class);
        assertThat(sandbox.chargesOf("order-late")).singleElement().extracting(PaymentGatewaySandbox.Charge::status).isEqualTo(Status.DONE);

        sandbox.resetAfterCharge(1);
        assertThatThrownBy(() -> charge(billingKey, "customer-4", "order-reset", "reset", 700)).isInstanceOf(IOException.class);
        assertThat(sandbox.chargesOf("order-reset")).hasSize(1);
    }

    @Test
    void aLatencyProfileHoldsEveryAnswerBackUntilRecovered() throws Exception {
        String billingKey = issueBillingKey("customer-9");
        sandbox.respondAfter(Duration.ofMillis(400), Duration.ofMillis(401));
        long started = System.nanoTime();
        assertThat(charge(billingKey, "customer-9", "order-slow", "slow", 700).statusCode()).isEqualTo(200);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(Duration.ofMillis(300));
        sandbox.answerLookupsAfter(Duration.ofMillis(400), Duration.ofMillis(401));
        started = System.nanoTime();
        assertThat(get("/v1/payments?orderId=order-slow")).hasSize(1);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(Duration.ofMillis(300));

        sandbox.respondAfter(Duration.ofSeconds(60), Duration.ofSeconds(60));
        sandbox.answerLookupsAfter(Duration.ofSeconds(60), Duration.ofSeconds(60));
        sandbox.recover();
        HttpRequest lookup = authorized(URI.create(sandbox.url() + "/v1/payments?orderId=order-slow")).timeout(Duration.ofSeconds(20)).GET().build();
        assertThat(http.send(lookup, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        HttpRequest quick = chargeRequest(billingKey, "customer-9", "order-quick", "quick", 700).timeout(Duration.ofSeconds(20)).build();
        assertThat(http.send(quick, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }

    @Test
    void aLatencyProfileIsLogNormalWithTheGivenMedianAndNinetyNinthPercentile() {
        PaymentGatewaySandbox.Latency seeds = new PaymentGatewaySandbox.Latency(Duration.ofMillis(200), Duration.ofMillis(700));
        assertThat(seeds.draw(0)).isEqualTo(Duration.ofMillis(200));
        assertThat(seeds.draw(2.3263).toMillis()).isEqualTo(700);
        assertThat(seeds.draw(-2.3263).toMillis()).isEqualTo(57);
        assertThatThrownBy(() -> new PaymentGatewaySandbox.Latency(Duration.ofMillis(200), Duration.ofMillis(100)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusesOrDropsConnectionsUntilRecovered() throws Exception {
        URI gateway = URI.create(sandbox.url());
        post("/sandbox/faults", "{\"mode\":\"refuse\"}", sandbox.controlUrl());
        assertThatThrownBy(() -> new Socket(gateway.getHost(), gateway.getPort()).close()).isInstanceOf(ConnectException.class);

        sandbox.dropConnections();
        assertThatThrownBy(() -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(gateway.getHost(), gateway.getPort()), 300);
            }
        }).isInstanceOf(SocketTimeoutException.class);

        sandbox.recover();
        assertThat(get("/v1/payments?orderId=none")).isEmpty();
        assertThat(sandbox.received()).hasSize(1);
    }

    @Test
    void cancelsInPartsOncePerIdempotencyKeyAndNeverMoreThanWasPaid() throws Exception {
        String billingKey = issueBillingKey("customer-7");
        String paymentKey = key(charge(billingKey, "customer-7", "order-7", "period-7", 9_900));

        assertThat(cancel(paymentKey, "refund-1", 4_000).statusCode()).isEqualTo(200);
        JsonNode repeated = JSON.readTree(cancel(paymentKey, "refund-1", 4_000).body());
        assertThat(repeated.path("status").asText()).isEqualTo("PARTIAL_CANCELED");
        assertThat(repeated.path("balanceAmount").asLong()).isEqualTo(5_900);
        assertThat(repeated.path("cancels")).singleElement().satisfies(c -> assertThat(c.path("idempotencyKey").asText()).isEqualTo("refund-1"));

        HttpResponse<String> tooMuch = cancel(paymentKey, "refund-2", 6_000);
        assertThat(tooMuch.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(tooMuch.body()).path("code").asText()).isEqualTo("NOT_CANCELABLE_AMOUNT");

        sandbox.resetAfterCancel(1);
        assertThatThrownBy(() -> cancel(paymentKey, "refund-3", 5_900)).isInstanceOf(IOException.class);
        assertThat(get("/v1/payments/" + paymentKey).path("status").asText()).isEqualTo("CANCELED");
        assertThat(sandbox.cancelsOf(paymentKey)).extracting(PaymentGatewaySandbox.Cancel::amount).containsExactly(4_000L, 5_900L);
    }

    @Test
    void aCancelCarriedOutAndAnswered500IsThereAndItsKeyAnsweredAgain() throws Exception {
        String billingKey = issueBillingKey("customer-12");
        String paymentKey = key(charge(billingKey, "customer-12", "order-12", "period-12", 9_900));

        sandbox.failAfterCancel(1, 500);
        HttpResponse<String> failed = cancel(paymentKey, "refund-12", 3_000);

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(JSON.readTree(failed.body()).path("code").asText()).isEqualTo("FAILED_INTERNAL_SYSTEM_PROCESSING");
        assertThat(sandbox.cancelsOf(paymentKey)).extracting(PaymentGatewaySandbox.Cancel::amount).containsExactly(3_000L);
        assertThat(JSON.readTree(cancel(paymentKey, "refund-12", 3_000).body()).path("balanceAmount").asLong()).isEqualTo(6_900);
        assertThat(sandbox.cancelsOf(paymentKey)).hasSize(1);
    }

    @Test
    void keepsByIdempotencyKeyWhatChargesTookLessWhatWasGivenBack() throws Exception {
        String billingKey = issueBillingKey("customer-8");
        String refunded = key(charge(billingKey, "customer-8", "order-8a", "period-1", 9_900));
        charge(billingKey, "customer-8", "order-8b", "period-2", 9_900);
        sandbox.decline(1);
        charge(billingKey, "customer-8", "order-8c", "period-3", 9_900);
        sandbox.keepPending(1);
        charge(billingKey, "customer-8", "order-8d", "period-4", 9_900);
        assertThat(cancel(refunded, "refund-8", 4_000).statusCode()).isEqualTo(200);

        // a declined charge and one still pending took nothing
        assertThat(sandbox.keptByIdempotencyKey()).isEqualTo(Map.of("period-1", 5_900L, "period-2", 9_900L));
    }

    private HttpResponse<String> cancel(String paymentKey, String idempotencyKey, long amount) throws Exception {
        return http.send(authorized(URI.create(sandbox.url() + "/v1/payments/" + paymentKey + "/cancel")).header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofString("{\"cancelReason\":\"test\",\"cancelAmount\":" + amount + "}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private String issueBillingKey(String customerKey) throws Exception {
        HttpResponse<String> issued = post("/v1/billing/authorizations/issue",
                "{\"authKey\":\"auth-" + customerKey + "\",\"customerKey\":\"" + customerKey + "\"}", null);
        assertThat(issued.statusCode()).isEqualTo(200);
        JsonNode body = JSON.readTree(issued.body());
        assertThat(body.path("card").path("number").asText()).contains("****");
        return body.path("billingKey").asText();
    }

    private HttpResponse<String> charge(String billingKey, String customerKey, String orderId, String idempotencyKey, long amount)
            throws IOException, InterruptedException {
        return http.send(chargeRequest(billingKey, customerKey, orderId, idempotencyKey, amount).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder chargeRequest(String billingKey, String customerKey, String orderId, String idempotencyKey, long amount) {
        HttpRequest.Builder request = authorized(URI.create(sandbox.url() + "/v1/billing/" + billingKey))
                .POST(HttpRequest.BodyPublishers.ofString("{\"customerKey\":\"" + customerKey + "\",\"orderId\":\"" + orderId
                        + "\",\"amount\":" + amount + ",\"orderName\":\"PRO\"}"));
        if (idempotencyKey != null) {
            request.header("Idempotency-Key", idempotencyKey);
        }
        return request;
    }

    private static String key(HttpResponse<String> answer) throws IOException {
        return JSON.readTree(answer.body()).path("paymentKey").asText();
    }

    private JsonNode get(String path) throws Exception {
        return JSON.readTree(http.send(authorized(URI.create(sandbox.url() + path)).GET().build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    private HttpResponse<String> post(String path, String json, String base) throws Exception {
        return http.send(authorized(URI.create((base == null ? sandbox.url() : base) + path))
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder authorized(URI uri) {
        return HttpRequest.newBuilder(uri).header("Content-Type", "application/json").header("Authorization",
                "Basic " + Base64.getEncoder().encodeToString((sandbox.secretKey() + ":").getBytes(StandardCharsets.UTF_8)));
    }
}
