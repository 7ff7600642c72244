package dev.umbra.e2e;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.KafkaConnectWorker;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.devstack.OutboxConnectors;
import dev.umbra.devstack.ServiceProcess;
import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.restassured.http.ContentType;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The five packaged services as processes against devstack: the real path from an HTTP call to another service's state. */
class WalkingSkeletonIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static LocalSystem system;

    @BeforeAll
    static void startSystem() {
        system = RunningSystem.get();
    }

    @AfterAll
    static void logsAreClean() {
        RunningSystem.assertCleanLogs();
    }

    @Test
    void everyServiceIsReadyAndDescribesItsApiOnItsManagementPortOnly() {
        for (ServiceProcess service : system.services()) {
            given().baseUri(service.managementUrl()).when().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
            given().baseUri(service.managementUrl()).when().get("/q/metrics").then().statusCode(200);
            given().baseUri(service.managementUrl()).accept("application/json").when().get("/q/openapi").then().statusCode(200)
                    .body("openapi", org.hamcrest.Matchers.startsWith("3."));
            for (String managementOnly : List.of("/q/health/ready", "/q/metrics", "/q/openapi")) {
                given().baseUri(service.url()).when().get(managementOnly).then().statusCode(404);
            }
        }
        given().baseUri(system.url("billing")).when().get("/plans").then().statusCode(200)
                .body("code", hasItems("FREE", "PRO", "PREMIUM"));
    }

    @Test
    void installingTheBotGivesTheGuildAFreeLicenseInOneTrace() {
        String guildId = Snowflakes.random();
        String traceId = "4bf92f3577b34da6a3ce929d" + guildId.substring(guildId.length() - 8);
        given().baseUri(system.url("guild")).auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                .header("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01")
                .body("{\"installerUserId\":\"223456789012345678\"}")
                .when().post("/guilds/{id}/installation", guildId)
                .then().statusCode(201);

        await().atMost(TIMEOUT).untilAsserted(() ->
                given().baseUri(system.url("licensing")).auth().oauth2(Tokens.bot())
                        .when().get("/guilds/{id}/license", guildId)
                        .then().statusCode(200).body("plan", equalTo("FREE")).body("status", equalTo("ACTIVE")));

        try (KafkaProbe licenses = KafkaProbe.read(Topics.of(Aggregates.LICENSE))) {
            ConsumerRecord<String, byte[]> granted = licenses.awaitRecord(
                    r -> KafkaProbe.value(r).contains("\"guild_id\": \"" + guildId + "\""), TIMEOUT);
            assertThat(KafkaProbe.header(granted, EventHeaders.EVENT_TYPE)).isEqualTo("LicenseGranted");
            // the caller's trace went on in guild-service's request, its BotInstalled, licensing's consumer and its LicenseGranted
            assertThat(KafkaProbe.header(granted, EventHeaders.TRACE_PARENT)).startsWith("00-" + traceId + "-");
        }
    }

    @Test
    void auditRecordsAnEventWhenItsTransactionCommittedNotWhenDebeziumReadIt() {
        KafkaConnectWorker connect = Devstack.shared().connect();
        String connector = OutboxConnectors.connectorName("guild");
        String guildId = Snowflakes.random();
        Instant beforeCommit;
        Instant afterCommit;
        connect.pause(connector);
        try {
            beforeCommit = Instant.now().truncatedTo(ChronoUnit.MILLIS);
            given().baseUri(system.url("guild")).auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                    .body("{\"installerUserId\":\"223456789012345678\"}")
                    .when().post("/guilds/{id}/installation", guildId)
                    .then().statusCode(201);
            afterCommit = Instant.now();
            SystemClient.pause(Duration.ofSeconds(2));
        } finally {
            connect.resume(connector);
        }

        Map<String, String> audited = await().atMost(TIMEOUT).until(() -> given().baseUri(system.url("audit")).auth().oauth2(Tokens.admin())
                .queryParam("aggregateType", Aggregates.GUILD).queryParam("aggregateId", guildId)
                .when().get("/audit/events").then().statusCode(200).extract().<List<Map<String, String>>>path("events"), events -> events.size() == 1)
                .get(0);
        assertThat(Instant.parse(audited.get("recordedAt"))).isBetween(beforeCommit, afterCommit);
        assertThat(Instant.parse(audited.get("processedAt"))).isAfter(afterCommit.plusSeconds(2));
    }

    @Test
    void kickingTheBotSuspendsTheLicenseAndTheOwnerIsTold() {
        String guildId = Snowflakes.random();
        String owner = Snowflakes.random();
        given().baseUri(system.url("guild")).auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                .body("{\"installerUserId\":\"" + owner + "\"}")
                .when().post("/guilds/{id}/installation", guildId)
                .then().statusCode(201);
        await().atMost(TIMEOUT).untilAsserted(() -> given().baseUri(system.url("licensing")).auth().oauth2(Tokens.bot())
                .when().get("/guilds/{id}/license", guildId).then().statusCode(200));

        given().baseUri(system.url("guild")).auth().oauth2(Tokens.bot())
                .when().delete("/guilds/{id}/installation", guildId)
                .then().statusCode(200);

        // guild-service → Kafka → licensing suspends → Kafka → guild-service's notifications → Discord.
        await().atMost(TIMEOUT).untilAsserted(() -> given().baseUri(system.url("licensing")).auth().oauth2(Tokens.bot())
                .when().get("/guilds/{id}/entitlements", guildId)
                .then().statusCode(200).body("status", equalTo("SUSPENDED")).body("entitledPlan", equalTo("FREE")));
        await().atMost(TIMEOUT).until(() -> !Devstack.shared().discord().deliveredTo(owner).isEmpty());
        assertThat(Devstack.shared().discord().deliveredTo(owner)).singleElement()
                .extracting(dev.umbra.devstack.DiscordSandbox.Delivered::content)
                .isEqualTo("Umbra is paused for your server (BOT_KICKED).");
    }
}
