package dev.umbra.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sandboxes as docker-compose runs them: ports and secrets from the environment. */
class SandboxesTest {

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void discordTakesItsBotTokenFromTheEnvironment() throws Exception {
        try (DiscordSandbox discord = (DiscordSandbox) Sandboxes.start("discord",
                Map.of("UMBRA_DISCORD_BOT_TOKEN", "token-of-the-environment", "SANDBOX_PORT", "0"), InetAddress.getLoopbackAddress())) {
            assertThat(post(discord.url() + "/api/v10/users/@me/channels", "Bot token-of-the-environment")).isEqualTo(200);
            assertThat(post(discord.url() + "/api/v10/users/@me/channels", "Bot another-token")).isEqualTo(401);
        }
    }

    @Test
    void paymentGatewayTakesItsKeysAndBillingsWebhookFromTheEnvironment() throws Exception {
        try (PaymentGatewaySandbox gateway = (PaymentGatewaySandbox) Sandboxes.start("payment-gateway", Map.of(
                "UMBRA_PAYMENT_GATEWAY_SECRET_KEY", "sk_environment", "UMBRA_PAYMENT_GATEWAY_CALLBACK_SECRET", "callback-secret",
                "UMBRA_PAYMENT_GATEWAY_CALLBACK_URL", "http://billing-service:8083/webhooks/payment-gateway",
                "SANDBOX_PORT", "0", "SANDBOX_CONTROL_PORT", "0"), InetAddress.getLoopbackAddress())) {
            assertThat(get(gateway.url() + "/v1/payments?orderId=none", basic("sk_environment"))).isEqualTo(200);
            assertThat(get(gateway.url() + "/v1/payments?orderId=none", basic("sk_other"))).isEqualTo(401);
            assertThat(gateway.callbackSecret()).isEqualTo("callback-secret");
        }
    }

    @Test
    void aMissingSecretStopsTheStart() {
        assertThatThrownBy(() -> Sandboxes.start("discord", Map.of("SANDBOX_PORT", "0"), InetAddress.getLoopbackAddress()))
                .hasMessageContaining("UMBRA_DISCORD_BOT_TOKEN");
    }

    private int post(String url, String authorization) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", authorization)
                .POST(HttpRequest.BodyPublishers.ofString("{\"recipient_id\":\"123\"}")).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private int get(String url, String authorization) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", authorization).GET().build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static String basic(String secretKey) {
        return "Basic " + Base64.getEncoder().encodeToString((secretKey + ":").getBytes(StandardCharsets.UTF_8));
    }
}
