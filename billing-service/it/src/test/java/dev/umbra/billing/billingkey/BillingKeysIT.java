package dev.umbra.billing.billingkey;

import static dev.umbra.billing.BillingFixtures.eventTypes;
import static dev.umbra.billing.BillingFixtures.issueKey;
import static dev.umbra.billing.BillingFixtures.newKey;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.matchesPattern;

import dev.umbra.billing.BillingFixtures;
import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Billing keys against devstack and the gateway sandbox: issued, listed masked, deleted once, only by their owner or the bot. */
@QuarkusTest
// gateway faults played on purpose: its guard reports each retry at WARN
@ExpectedLog(category = "dev.umbra.billing.gateway.GatewayGuards")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
class BillingKeysIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @InjectDevstack
    Database db;

    @InjectDevstack
    PaymentGatewaySandbox gateway;

    @Inject
    CircuitBreakerMaintenance circuits;


    @BeforeEach
    void healthyGateway() {
        gateway.recover();
        circuits.resetAll();
    }

    @Test
    void aUserRegistersAKeyThatIsStoredEncryptedAndListedMasked() {
        UUID user = UUID.randomUUID();
        String authKey = "auth-" + UUID.randomUUID();
        String issued = given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON)
                .body("{\"authKey\":\"" + authKey + "\"}").when().post("/users/{userId}/billing-keys", user)
                .then().statusCode(201)
                .body("userId", equalTo(user.toString()))
                .body("cardBrand", equalTo("SANDBOX CARD"))
                .body("cardLast4", matchesPattern("[0-9*]{4}"))
                .extract().asString();
        UUID id = UUID.fromString(io.restassured.path.json.JsonPath.from(issued).getString("id"));

        String listed = given().auth().oauth2(Tokens.user(user.toString())).when().get("/users/{userId}/billing-keys", user)
                .then().statusCode(200).body("$", hasSize(1)).body("[0].id", equalTo(id.toString())).extract().asString();
        String stored = db.text("select encrypted_key from billing_key where id = ?", id);
        assertThat(stored).startsWith("v1:");
        for (String shown : List.of(issued, listed, stored)) {
            assertThat(shown).doesNotContain("bk_").doesNotContain(authKey).doesNotContain("4330");
        }
    }

    @Test
    void aUserActsOnlyForThemselvesAndTheBotForAnyone() {
        UUID user = UUID.randomUUID();
        UUID someoneElse = UUID.randomUUID();
        given().auth().oauth2(Tokens.user(someoneElse.toString())).contentType(ContentType.JSON).body("{\"authKey\":\"a\"}")
                .when().post("/users/{userId}/billing-keys", user)
                .then().statusCode(403).contentType("application/problem+json");
        given().auth().oauth2(Tokens.user(someoneElse.toString())).when().get("/users/{userId}/billing-keys", user)
                .then().statusCode(403).contentType("application/problem+json");
        given().contentType(ContentType.JSON).body("{\"authKey\":\"a\"}").when().post("/users/{userId}/billing-keys", user)
                .then().statusCode(401);
        assertThat(db.count("select count(*) from billing_key where user_id = ?", user)).isZero();

        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"authKey\":\"a\"}")
                .when().post("/users/{userId}/billing-keys", user).then().statusCode(201);
        UUID key = UUID.fromString(given().auth().oauth2(Tokens.user(user.toString())).when().get("/users/{userId}/billing-keys", user)
                .then().statusCode(200).body("$", hasSize(1)).extract().path("[0].id"));
        given().auth().oauth2(Tokens.user(someoneElse.toString())).when().delete("/users/{userId}/billing-keys/{id}", user, key)
                .then().statusCode(403);
        given().auth().oauth2(Tokens.user(someoneElse.toString())).when().delete("/users/{userId}/billing-keys/{id}", someoneElse, key)
                .then().statusCode(404).contentType("application/problem+json");
        assertThat(db.count("select count(*) from billing_key where id = ? and deleted_at is null", key)).isOne();
    }

    @Test
    void malformedRequestsAre400ProblemsAndStoreNothing() {
        UUID user = UUID.randomUUID();
        for (String body : List.of("{}", "{\"authKey\":\"  \"}", "{not json", "")) {
            given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body(body)
                    .when().post("/users/{userId}/billing-keys", user)
                    .then().statusCode(400).contentType("application/problem+json");
        }
        assertThat(db.count("select count(*) from billing_key where user_id = ?", user)).isZero();
    }

    @Test
    void concurrentDeletesOfOneKeyDeleteItOnceWithOneEvent() throws Exception {
        UUID user = UUID.randomUUID();
        UUID key = newKey(user);
        ExecutorService clients = Executors.newFixedThreadPool(6);
        List<Future<Integer>> answers = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            answers.add(clients.submit(() -> given().auth().oauth2(Tokens.user(user.toString()))
                    .when().delete("/users/{userId}/billing-keys/{id}", user, key).statusCode()));
        }
        List<Integer> statuses = new ArrayList<>();
        for (Future<Integer> answer : answers) {
            statuses.add(answer.get());
        }
        clients.shutdown();
        // A delete that lost the race on the row's version is a 409 and deleted nothing; any that ran found it deleted.
        assertThat(statuses).contains(204).allMatch(status -> status == 204 || status == 409);
        given().auth().oauth2(Tokens.user(user.toString())).when().get("/users/{userId}/billing-keys", user)
                .then().statusCode(200).body("$", hasSize(0));

        UUID marker = newKey(user);
        given().auth().oauth2(Tokens.user(user.toString())).when().delete("/users/{userId}/billing-keys/{id}", user, marker)
                .then().statusCode(204);
        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.BILLING_KEY))) {
            await().atMost(WAIT).until(() -> eventTypes(topic, marker.toString()).contains("BillingKeyDeleted"));
            assertThat(eventTypes(topic, key.toString())).containsExactly("BillingKeyIssued", "BillingKeyDeleted");
            assertThat(topic.seen()).allSatisfy(r -> assertThat(KafkaProbe.value(r)).doesNotContain("bk_"));
        }
    }

    @Test
    void aKeyIsNotDeletedWhileAChargeWithItIsOnItsWayAndAKeyDeletedFirstIsNeverCharged() throws Exception {
        UUID user = UUID.randomUUID();
        UUID key = newKey(user);
        gateway.answerLate(1, Duration.ofMillis(1_500));
        ExecutorService client = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> subscribed = client.submit(() -> BillingFixtures.subscribe(user, Snowflakes.random(), "PRO", key).statusCode());
            await().atMost(WAIT).until(() -> db.count("""
                    select count(*) from payment p join subscription s on s.id = p.subscription_id
                    where s.user_id = ? and p.status = 'IN_PROGRESS'""", user) == 1);

            // the charge is on its way: the key stays, and says why
            given().auth().oauth2(Tokens.user(user.toString())).when().delete("/users/{userId}/billing-keys/{id}", user, key)
                    .then().statusCode(409).contentType("application/problem+json");
            assertThat(subscribed.get()).isEqualTo(201);
        } finally {
            client.shutdown();
        }

        // answered: the key goes, and nothing is charged with it from then on
        given().auth().oauth2(Tokens.user(user.toString())).when().delete("/users/{userId}/billing-keys/{id}", user, key)
                .then().statusCode(204);
        long charges = gateway.chargeAttempts();
        BillingFixtures.subscribe(user, Snowflakes.random(), "PRO", key).then().statusCode(422).contentType("application/problem+json");
        assertThat(gateway.chargeAttempts()).isEqualTo(charges);
    }

    @Test
    void noBillingKeyAuthKeyOrCardNumberReachesTheLog() {
        List<String> logged = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                String message = record instanceof ExtLogRecord ext ? ext.getFormattedMessage() : record.getMessage();
                logged.add(message + (record.getThrown() == null ? "" : " " + record.getThrown()));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger root = Logger.getLogger("");
        root.addHandler(capture);
        UUID user = UUID.randomUUID();
        String authKey = "auth-" + UUID.randomUUID();
        try {
            gateway.failNext(2, 500);
            given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON)
                    .body("{\"authKey\":\"" + authKey + "\"}").when().post("/users/{userId}/billing-keys", user).then().statusCode(201);
            UUID key = UUID.fromString(given().auth().oauth2(Tokens.user(user.toString())).when().get("/users/{userId}/billing-keys", user)
                    .then().statusCode(200).extract().path("[0].id"));
            gateway.failNext(1, 500);
            BillingFixtures.subscribe(user, Snowflakes.random(), "PRO", key).then().statusCode(201);
        } finally {
            root.removeHandler(capture);
        }
        // the retries were logged, and nothing secret with them
        assertThat(logged).anyMatch(line -> line.contains("pg-payment retry"));
        assertThat(logged).noneMatch(line -> line.contains("bk_") || line.contains(authKey) || line.contains("4330"));
    }

    @Test
    void aGatewayThatCannotBeReachedIsA502ProblemAndStoresNothing() {
        UUID user = UUID.randomUUID();
        gateway.refuseConnections();
        issueKey(user).then().statusCode(502).contentType("application/problem+json");
        gateway.recover();
        assertThat(db.count("select count(*) from billing_key where user_id = ?", user)).isZero();
        issueKey(user).then().statusCode(201);
    }
}
