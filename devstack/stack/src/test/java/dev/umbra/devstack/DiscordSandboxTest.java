package dev.umbra.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DiscordSandboxTest {

    private final DiscordSandbox sandbox = DiscordSandbox.start();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stop() {
        sandbox.close();
    }

    @Test
    void deliversADirectMessageOncePerNonce() throws Exception {
        assertThat(post("/api/v10/users/@me/channels", "{\"recipient_id\":\"123456789012345678\"}", true).body())
                .contains("\"id\":\"dm-123456789012345678\"");
        String message = "{\"content\":\"hello\",\"nonce\":\"n1\",\"enforce_nonce\":true}";
        post("/api/v10/channels/dm-123456789012345678/messages", message, true);
        post("/api/v10/channels/dm-123456789012345678/messages", message, true);

        assertThat(sandbox.deliveredTo("123456789012345678")).singleElement().extracting(DiscordSandbox.Delivered::content).isEqualTo("hello");
        assertThat(sandbox.postedNonces()).containsExactly("n1", "n1");
    }

    @Test
    void refusesCallsWithoutTheBotTokenAndPlaysOutagesOnRequest() throws Exception {
        assertThat(post("/api/v10/users/@me/channels", "{\"recipient_id\":\"1\"}", false).statusCode()).isEqualTo(401);

        post("/sandbox/faults", "{\"mode\":\"fail\",\"count\":1}", false);
        assertThat(post("/api/v10/users/@me/channels", "{\"recipient_id\":\"1\"}", true).statusCode()).isEqualTo(503);
        assertThat(post("/api/v10/users/@me/channels", "{\"recipient_id\":\"1\"}", true).statusCode()).isEqualTo(200);
    }

    @Test
    void ratesLimitsWithRetryAfterAndRefusesMessagesOnRequest() throws Exception {
        post("/sandbox/faults", "{\"mode\":\"rate-limit\",\"count\":1,\"retry_after_seconds\":2.5}", false);
        HttpResponse<String> limited = post("/api/v10/users/@me/channels", "{\"recipient_id\":\"1\"}", true);
        assertThat(limited.statusCode()).isEqualTo(429);
        assertThat(limited.headers().firstValue("Retry-After")).hasValue("2.5");
        assertThat(limited.body()).contains("\"retry_after\":2.5");

        post("/sandbox/faults", "{\"mode\":\"reject\",\"count\":1}", false);
        assertThat(post("/api/v10/users/@me/channels", "{\"recipient_id\":\"1\"}", true).statusCode()).isEqualTo(403);
        assertThat(post("/api/v10/users/@me/channels", "{\"recipient_id\":\"1\"}", true).statusCode()).isEqualTo(200);
    }

    private HttpResponse<String> post(String path, String json, boolean authorized) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(sandbox.url() + path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
        if (authorized) {
            request.header("Authorization", "Bot " + sandbox.botToken());
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
