package dev.umbra.guild.lifecycle;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.platform.storage.DatabaseGuards;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.TcpProxy;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.faulttolerance.api.CircuitBreakerState;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The database goes away under the service, or stops answering on open connections, and comes back:
 * requests answer 503 problems with Retry-After (at once, once the circuit is open) instead of hanging
 * or 500, nothing half-done is stored or published, and the service recovers by itself.
 */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.platform.workqueue.WorkQueues", message = "round failed")
@ExpectedLog(category = "dev.umbra.platform.storage.DatabaseGuards", message = "circuit opened")
@ExpectedLog(category = "dev.umbra.platform.web.ProblemMappers", message = "database unavailable|database did not answer")
@ExpectedLog(category = "dev.umbra.guild.notification", message = "Connection refused|closed|connection")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "guild"), @ResourceArg(name = "outbox", value = "guild")})
class DatabaseOutageIT {

    @InjectDevstack
    Database db;

    @InjectDevstack
    TcpProxy link;

    @Inject
    CircuitBreakerMaintenance circuits;

    @AfterEach
    void restore() {
        link.restore();
    }

    @Test
    void aDownDatabaseOpensTheCircuitAndAnswers503UntilItIsBack() {
        String guildId = Snowflakes.random();
        install(guildId).then().statusCode(201);

        link.cut();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
            get(guildId).then().statusCode(503).contentType("application/problem+json")
                    .header("Retry-After", org.hamcrest.Matchers.matchesPattern("\\d+")).body("status", equalTo(503));
            return circuits.currentState(DatabaseGuards.DATABASE) == CircuitBreakerState.OPEN;
        });
        String whileDown = Snowflakes.random();
        install(whileDown).then().statusCode(503).contentType("application/problem+json");

        link.restore();
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> get(guildId).statusCode() == 200);
        assertThat(circuits.currentState(DatabaseGuards.DATABASE)).isNotEqualTo(CircuitBreakerState.OPEN);
        assertThat(db.count("select count(*) from guild where guild_id = ?", whileDown)).isZero();
    }

    @Test
    void writesDuringAnOutageAreEitherDoneOnceWithOneEventOrNotAtAll() throws Exception {
        var statusByGuild = new ConcurrentHashMap<String, Integer>();
        ExecutorService clients = Executors.newFixedThreadPool(8);
        List<Future<?>> running = new ArrayList<>();
        for (int c = 0; c < 8; c++) {
            running.add(clients.submit(() -> {
                for (int i = 0; i < 40; i++) {
                    String guildId = Snowflakes.random();
                    statusByGuild.put(guildId, install(guildId).statusCode());
                }
            }));
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> statusByGuild.size() >= 60);
        link.cut();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> statusByGuild.values().stream().filter(s -> s == 503).count() >= 20);
        link.restore();
        for (Future<?> client : running) {
            client.get();
        }
        clients.shutdown();

        assertThat(statusByGuild.values()).containsOnly(201, 503);
        var created = statusByGuild.entrySet().stream().filter(e -> e.getValue() == 201).map(e -> e.getKey()).collect(Collectors.toSet());
        var refused = statusByGuild.entrySet().stream().filter(e -> e.getValue() == 503).map(e -> e.getKey()).collect(Collectors.toSet());
        assertThat(created).isNotEmpty();
        assertThat(refused).isNotEmpty();
        assertThat(db.count("select count(*) from guild where guild_id = any(string_to_array(?, ','))", String.join(",", created)))
                .isEqualTo(created.size());
        // A 503 after COMMIT was sent leaves the outcome unknown: such a guild may exist, but then with its one event.
        long refusedButStored = db.count("select count(*) from guild where guild_id = any(string_to_array(?, ','))",
                String.join(",", refused));
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.GUILD))) {
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> topic.seen().stream().filter(r -> created.contains(r.key()) || refused.contains(r.key())).count()
                            >= created.size() + refusedButStored);
            var events = topic.seen().stream().filter(r -> created.contains(r.key()) || refused.contains(r.key())).toList();
            assertThat(events).allMatch(r -> "BotInstalled".equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)));
            assertThat(events.stream().map(r -> r.key()).distinct()).hasSize(events.size());
            assertThat(events.stream().filter(r -> created.contains(r.key()))).hasSize(created.size());
            assertThat(events.stream().filter(r -> refused.contains(r.key()))).hasSize((int) refusedButStored);
        }
    }

    @Test
    void aDatabaseThatStopsAnsweringGetsEveryRequestAnsweredWith503AndWhatWasSentTakesEffectAtMostOnce() throws Exception {
        String known = Snowflakes.random();
        install(known).then().statusCode(201);

        link.freeze();
        ExecutorService clients = Executors.newFixedThreadPool(16);
        List<String> installed = new ArrayList<>();
        List<Future<io.restassured.response.Response>> requests = new ArrayList<>();
        for (int c = 0; c < 8; c++) {
            String guildId = Snowflakes.random();
            installed.add(guildId);
            requests.add(clients.submit(() -> install(guildId)));
            requests.add(clients.submit(() -> get(known)));
        }
        // A hung request fails the test here: each is answered without waiting for the database to come back.
        // Those that held a pooled connection waited the call timeout: their outcome is unknown. The others
        // wanted a new connection, which a frozen server does not open either: no connection within the
        // acquire timeout (busy) or the connect timeout (unreachable, counted by the circuit, which may then
        // answer the rest at once); nothing of theirs was sent.
        List<String> answers = new ArrayList<>();
        for (Future<io.restassured.response.Response> request : requests) {
            answers.add(request.get(60, TimeUnit.SECONDS).then().statusCode(503).contentType("application/problem+json")
                    .header("Retry-After", org.hamcrest.Matchers.matchesPattern("\\d+")).extract().path("detail"));
        }
        clients.shutdown();
        assertThat(answers).allMatch(detail -> detail.contains("may still take effect") || detail.contains("busy")
                        || detail.contains("cannot reach its database"))
                .anyMatch(detail -> detail.contains("may still take effect"));

        link.restore();
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> get(known).statusCode() == 200 && circuits.currentState(DatabaseGuards.DATABASE) == CircuitBreakerState.CLOSED);
        // what the frozen requests had sent reached the database when it answered again: each install is
        // then there once with its one event, or not at all
        String sent = String.join(",", installed);
        String countStored = "select count(*) from guild where guild_id = any(string_to_array(?, ','))";
        AtomicLong lastCount = new AtomicLong(-1);
        // the held statements run when the database answers again, each in its own time: wait until none is left
        Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    long now = db.count(countStored, sent);
                    return now == lastCount.getAndSet(now);
                });
        long stored = db.count(countStored, sent);
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.GUILD))) {
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> topic.seen().stream().filter(r -> installed.contains(r.key())).count() >= stored);
            Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                    .until(() -> topic.seen().stream().filter(r -> installed.contains(r.key())).count() == stored);
        }
    }

    private static io.restassured.response.Response install(String guildId) {
        return given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                .body("{\"installerUserId\":\"223456789012345678\"}")
                .when().post("/guilds/{id}/installation", guildId);
    }

    private static io.restassured.response.Response get(String guildId) {
        return given().auth().oauth2(Tokens.bot()).when().get("/guilds/{id}", guildId);
    }
}
