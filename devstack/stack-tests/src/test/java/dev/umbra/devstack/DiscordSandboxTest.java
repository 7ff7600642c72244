package dev.umbra.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    void namesTheUserItsBotTokenBelongsTo() throws Exception {
        HttpResponse<String> self = send("GET", "/api/v10/users/@me", "");
        assertThat(self.statusCode()).isEqualTo(200);
        assertThat(self.body()).contains("\"id\":\"" + DiscordSandbox.BOT_USER_ID + "\"").contains("\"bot\":true");
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

    @Test
    void keepsAGuildsRolesChannelsAndMemberRolesAndRecordsEveryChange() throws Exception {
        sandbox.guilds().put("100000000000000001", """
                {"roles": [{"id": "200000000000000001", "name": "mod", "permissions": "8"}],
                 "channels": [{"id": "300000000000000001", "type": 0, "name": "general"}],
                 "members": [{"user": {"id": "400000000000000001"}, "roles": ["200000000000000001"]}]}""");

        HttpResponse<String> created = post("/api/v10/guilds/100000000000000001/roles", "{\"name\":\"helper\"}", true);
        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(send("PATCH", "/api/v10/channels/300000000000000001", "{\"name\":\"lobby\"}").statusCode()).isEqualTo(200);
        assertThat(send("DELETE", "/api/v10/guilds/100000000000000001/roles/200000000000000001", "").statusCode()).isEqualTo(204);
        assertThat(send("DELETE", "/api/v10/guilds/100000000000000001/roles/200000000000000001", "").statusCode()).isEqualTo(404);

        var guild = new com.fasterxml.jackson.databind.ObjectMapper().readTree(sandbox.guilds().get("100000000000000001"));
        assertThat(guild.path("roles")).singleElement().satisfies(role -> assertThat(role.path("name").asText()).isEqualTo("helper"));
        assertThat(guild.path("channels").get(0).path("name").asText()).isEqualTo("lobby");
        assertThat(guild.path("members").get(0).path("roles")).as("a deleted role leaves its members").isEmpty();
        assertThat(sandbox.guilds().changes("100000000000000001")).containsExactly("POST /api/v10/guilds/100000000000000001/roles",
                "PATCH /api/v10/channels/300000000000000001", "DELETE /api/v10/guilds/100000000000000001/roles/200000000000000001");
    }

    @Test
    void aCreateWhoseAnswerIsLostIsMadeAllTheSame() throws Exception {
        sandbox.guilds().put("100000000000000002", "{\"roles\": [], \"channels\": [], \"members\": []}");
        post("/sandbox/faults", "{\"mode\":\"lose-create-answers\",\"count\":1}", false);

        assertThatThrownBy(() -> post("/api/v10/guilds/100000000000000002/roles", "{\"name\":\"helper\"}", true))
                .as("the connection closes without an answer").isInstanceOf(java.io.IOException.class);
        assertThat(sandbox.guilds().get("100000000000000002")).contains("\"name\":\"helper\"");
        assertThat(post("/api/v10/guilds/100000000000000002/roles", "{\"name\":\"other\"}", true).statusCode()).isEqualTo(201);
        assertThat(sandbox.guilds().changes("100000000000000002")).hasSize(2);
    }

    @Test
    void ordersRolesByPositionAndRefusesAnUnknownRole() throws Exception {
        sandbox.guilds().put("100000000000000003", """
                {"roles": [{"id": "100000000000000003", "name": "@everyone", "position": 0},
                           {"id": "200000000000000001", "name": "mod", "position": 1}], "channels": [], "members": []}""");
        post("/api/v10/guilds/100000000000000003/roles", "{\"name\":\"helper\"}", true);

        assertThat(send("PATCH", "/api/v10/guilds/100000000000000003/roles", "[{\"id\":\"200000000000000001\",\"position\":2}]")
                .statusCode()).isEqualTo(200);
        assertThat(send("PATCH", "/api/v10/guilds/100000000000000003/roles", "[{\"id\":\"299999999999999999\",\"position\":1}]")
                .statusCode()).isEqualTo(400);
        var guild = new com.fasterxml.jackson.databind.ObjectMapper().readTree(sandbox.guilds().get("100000000000000003"));
        assertThat(guild.path("roles").get(1).path("position").asInt()).as("mod, moved").isEqualTo(2);
        assertThat(guild.path("roles").get(2).path("position").asInt()).as("a new role sits just above @everyone").isEqualTo(1);
        assertThat(sandbox.guilds().changes("100000000000000003")).hasSize(2);
    }

    @Test
    void anOutageCanStartAfterSomeCallsPassed() throws Exception {
        sandbox.failAfter(1, 1);
        assertThat(post("/api/v10/users/@me/channels", "{\"recipient_id\":\"1\"}", true).statusCode()).isEqualTo(200);
        assertThat(post("/api/v10/users/@me/channels", "{\"recipient_id\":\"1\"}", true).statusCode()).isEqualTo(503);
        assertThat(post("/api/v10/users/@me/channels", "{\"recipient_id\":\"1\"}", true).statusCode()).isEqualTo(200);
    }

    private HttpResponse<String> send(String method, String path, String json) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(sandbox.url() + path)).header("Content-Type", "application/json")
                .header("Authorization", "Bot " + sandbox.botToken())
                .method(method, json.isEmpty() ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
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
