package dev.umbra.billing.ledger;

import static dev.umbra.billing.BillingFixtures.distinctEvents;
import static dev.umbra.billing.BillingFixtures.invoicesOf;
import static dev.umbra.billing.BillingFixtures.ofAggregate;
import static dev.umbra.billing.BillingFixtures.refund;
import static dev.umbra.billing.BillingFixtures.subscribe;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.umbra.billing.PayingUserTest;
import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.PaymentGatewaySandbox.Cancel;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import dev.umbra.testing.LogLines;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The ledger against devstack: append-only in the database, corrections by reversal, and its two time axes. */
@QuarkusTest
// the database fault played on purpose while a correction is written: 503, nothing stored
@ExpectedLog(category = "dev.umbra.platform.web.ProblemMappers", message = "database unavailable")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
@ExpectedLog(category = LogLines.POSTGRESQL, level = "ERROR", message = "^ledger_entry is append-only")
@ExpectedLog(category = LogLines.POSTGRESQL, level = "ERROR", message = "^injected fault$")
class LedgerIT extends PayingUserTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @InjectDevstack
    Devstack devstack;

    @Test
    void anUpdateDeleteOrTruncateOfTheLedgerFailsAtTheDatabase() throws Exception {
        UUID subscription = active();
        String entry = db.text("select id::text from ledger_entry where subscription_id = ?", subscription);

        for (String sql : List.of("update ledger_entry set amount = 1 where id = '" + entry + "'",
                "delete from ledger_entry where id = '" + entry + "'", "truncate ledger_entry")) {
            try (Connection connection = devstack.postgres().connect("billing"); Statement statement = connection.createStatement()) {
                assertThatThrownBy(() -> statement.execute(sql)).as(sql).isInstanceOf(SQLException.class).hasMessageContaining("append-only");
            }
        }
        assertThat(db.text("select kind || ':' || amount from ledger_entry where id = ?::uuid", entry)).isEqualTo("CHARGE:9900");
    }

    /**
     * The worked example on the service: a renewal booked at ₩9,900 turns out to have been ₩19,900.
     * The balance as of the charge, as known before the correction, still says ₩9,900; as known now, ₩19,900.
     */
    @Test
    void aCorrectionReversesTheWrongEntryAndTheBalanceAnswersWhatWeKnewThen() {
        UUID subscription = active();
        JsonNode charge = ledger(subscription, null, null).path("entries").get(0);
        Instant occurred = Instant.parse(charge.path("occurredAt").asText());
        Instant recorded = Instant.parse(charge.path("recordedAt").asText());

        Map<String, Object> correction = correct(subscription, charge.path("id").asText(), 19_900).then().statusCode(201)
                .extract().jsonPath().getMap("$");

        Map<?, ?> reversal = (Map<?, ?>) correction.get("reversal");
        Map<?, ?> adjustment = (Map<?, ?>) correction.get("adjustment");
        assertThat(reversal.get("kind")).isEqualTo("REVERSAL");
        assertThat(reversal.get("amount")).isEqualTo(-9_900);
        assertThat(reversal.get("reverses")).isEqualTo(charge.path("id").asText());
        assertThat(adjustment.get("amount")).isEqualTo(19_900);
        assertThat(Instant.parse((String) adjustment.get("occurredAt"))).isEqualTo(occurred);
        assertThat(Instant.parse((String) adjustment.get("recordedAt"))).isAfter(recorded);
        assertThat(reversal.get("sourceEventId")).isEqualTo(adjustment.get("sourceEventId"));

        assertThat(balance(subscription, occurred, recorded)).isEqualTo(9_900);
        assertThat(balance(subscription, occurred, null)).isEqualTo(19_900);
        assertThat(balance(subscription, occurred.minusSeconds(1), null)).isZero();
        assertThat(ledger(subscription, occurred.toString(), recorded.toString()).path("entries")).hasSize(1);
        assertThat(ledger(subscription, null, null).path("entries")).hasSize(3);

        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.SUBSCRIPTION))) {
            await().atMost(WAIT).until(() -> distinctEvents(topic, subscription.toString(), "LedgerEntryCorrected") == 1);
            JsonNode corrected = payload(ofAggregate(topic, subscription.toString()).stream()
                    .filter(r -> KafkaProbe.header(r, "eventType").equals("LedgerEntryCorrected")).findFirst().orElseThrow());
            assertThat(corrected.path("corrected_entry_id").asText()).isEqualTo(charge.path("id").asText());
            assertThat(corrected.path("wrong_amount").decimalValue().longValueExact()).isEqualTo(9_900);
            assertThat(corrected.path("right_amount").decimalValue().longValueExact()).isEqualTo(19_900);
            assertThat(KafkaProbe.header(ofAggregate(topic, subscription.toString()).stream()
                    .filter(r -> KafkaProbe.header(r, "eventType").equals("LedgerEntryCorrected")).findFirst().orElseThrow(), "id"))
                    .isEqualTo(reversal.get("sourceEventId"));
        }
    }

    @Test
    void twoCorrectionsOfOneEntryAtOnceReverseItOnce() throws Exception {
        UUID subscription = active();
        String entry = ledger(subscription, null, null).path("entries").get(0).path("id").asText();

        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<Integer>> answers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            long amount = 10_000 + i;
            answers.add(pool.submit(() -> correct(subscription, entry, amount).statusCode()));
        }
        List<Integer> statuses = new ArrayList<>();
        for (Future<Integer> answer : answers) {
            statuses.add(answer.get());
        }
        pool.shutdown();

        assertThat(statuses).containsOnly(201, 422);
        assertThat(statuses.stream().filter(status -> status == 201)).hasSize(1);
        assertThat(db.count("select count(*) from ledger_entry where reverses_entry_id = ?::uuid", entry)).isOne();
        assertThat(db.count("select count(*) from ledger_entry where subscription_id = ?", subscription)).isEqualTo(3);
    }

    @Test
    void aDatabaseFaultWhileCorrectingStoresNothingAndTheCorrectionCanBeAskedAgain() {
        UUID subscription = active();
        String entry = ledger(subscription, null, null).path("entries").get(0).path("id").asText();
        String fault = "ledger_fault_" + subscription.toString().replace("-", "");
        db.execute("create function " + fault + "() returns trigger language plpgsql as $$ begin "
                + "if new.subscription_id = '" + subscription + "' and new.kind = 'ADJUSTMENT' then "
                + "raise exception 'injected fault' using errcode = '40001'; end if; return new; end; $$");
        db.execute("create trigger " + fault + " before insert on ledger_entry for each row execute function " + fault + "()");
        try {
            correct(subscription, entry, 19_900).then().statusCode(503).contentType("application/problem+json");
        } finally {
            db.execute("drop trigger " + fault + " on ledger_entry");
            db.execute("drop function " + fault + "()");
        }
        assertThat(db.count("select count(*) from ledger_entry where subscription_id = ?", subscription)).isOne();

        correct(subscription, entry, 19_900).then().statusCode(201);
        assertThat(balance(subscription, null, null)).isEqualTo(19_900);
    }

    /** Refunds and corrections in a seeded random order: the balance is what was charged, less what was given back, plus the corrections. */
    @Test
    void theBalanceIsChargesLessRefundsPlusCorrectionsAfterARandomSequence() {
        Random random = new Random(9);
        UUID subscription = active();
        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body("{\"planCode\":\"PREMIUM\"}")
                .when().put("/subscriptions/{id}/plan", subscription).then().statusCode(200);
        List<Map<String, Object>> invoices = invoicesOf(subscription);
        long corrections = 0;
        for (int step = 0; step < 12; step++) {
            if (random.nextBoolean()) {
                Map<String, Object> invoice = invoices.get(random.nextInt(invoices.size()));
                int asked = 1 + random.nextInt(((Number) invoice.get("total")).intValue());
                int status = refund(UUID.fromString((String) invoice.get("id")), asked, "random", "k-" + UUID.randomUUID()).statusCode();
                assertThat(status).isIn(201, 422);
            } else {
                JsonNode correctable = correctable(subscription);
                JsonNode wrong = correctable.get(random.nextInt(correctable.size()));
                long right = wrong.path("amount").asLong() + (1 + random.nextInt(3_000)) * (random.nextBoolean() ? 1 : -1);
                correct(subscription, wrong.path("id").asText(), right).then().statusCode(201);
                corrections += right - wrong.path("amount").asLong();
            }
        }

        long charged = db.count("select sum(paid_amount) from payment where subscription_id = ? and status = 'SUCCEEDED'", subscription);
        long givenBack = 0;
        for (String paymentKey : List.of(db.text("select string_agg(external_payment_key, ',') from payment where subscription_id = ? "
                + "and status = 'SUCCEEDED'", subscription).split(","))) {
            givenBack += gateway.cancelsOf(paymentKey).stream().mapToLong(Cancel::amount).sum();
        }
        assertThat(balance(subscription, null, null)).isEqualTo(charged - givenBack + corrections);
    }

    @Test
    void badLedgerRequestsAreProblemsAndStoreNothing() {
        UUID subscription = active();
        String entry = ledger(subscription, null, null).path("entries").get(0).path("id").asText();
        UUID other = active();
        String othersEntry = ledger(other, null, null).path("entries").get(0).path("id").asText();

        given().auth().oauth2(Tokens.admin()).when().get("/subscriptions/{id}/balance?asOf=yesterday", subscription).then().statusCode(400)
                .contentType("application/problem+json");
        given().auth().oauth2(Tokens.admin()).when().get("/subscriptions/{id}/ledger", UUID.randomUUID()).then().statusCode(404)
                .contentType("application/problem+json");
        given().auth().oauth2(Tokens.user(UUID.randomUUID().toString())).when().get("/subscriptions/{id}/ledger", subscription).then()
                .statusCode(403).contentType("application/problem+json");
        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON)
                .body("{\"entryId\":\"" + entry + "\",\"amount\":1,\"reason\":\"mine\"}")
                .when().post("/subscriptions/{id}/ledger/corrections", subscription).then().statusCode(403).contentType("application/problem+json");
        correct(subscription, othersEntry, 1).then().statusCode(422).contentType("application/problem+json");
        correct(subscription, entry, 9_900).then().statusCode(422).contentType("application/problem+json");
        given().auth().oauth2(Tokens.admin()).contentType(ContentType.JSON).body("{\"entryId\":\"" + entry + "\",\"reason\":\"no amount\"}")
                .when().post("/subscriptions/{id}/ledger/corrections", subscription).then().statusCode(400).contentType("application/problem+json");

        assertThat(db.count("select count(*) from ledger_entry where subscription_id in (?, ?)", subscription, other)).isEqualTo(2);
        given().auth().oauth2(Tokens.user(user.toString())).when().get("/subscriptions/{id}/ledger", subscription).then().statusCode(200)
                .body("balance", equalTo(9_900)).body("entries", hasSize(1));
    }

    private UUID active() {
        return UUID.fromString(subscribe(user, Snowflakes.random(), "PRO", key).then().statusCode(201).extract().path("id"));
    }

    /** The entries a correction may name: not reversals, not reversed. */
    private static JsonNode correctable(UUID subscription) {
        JsonNode entries = ledger(subscription, null, null).path("entries");
        List<String> reversed = new ArrayList<>();
        entries.forEach(entry -> {
            if (!entry.path("reverses").isNull() && !entry.path("reverses").isMissingNode()) {
                reversed.add(entry.path("reverses").asText());
            }
        });
        ArrayNode candidates = JsonNodeFactory.instance.arrayNode();
        entries.forEach(entry -> {
            if (!entry.path("kind").asText().equals("REVERSAL") && !reversed.contains(entry.path("id").asText())) {
                candidates.add(entry);
            }
        });
        return candidates;
    }

    private static Response correct(UUID subscription, String entryId, long amount) {
        return given().auth().oauth2(Tokens.admin()).contentType(ContentType.JSON)
                .body("{\"entryId\":\"" + entryId + "\",\"amount\":" + amount + ",\"reason\":\"the gateway charged another amount\"}")
                .when().post("/subscriptions/{id}/ledger/corrections", subscription);
    }

    private static JsonNode ledger(UUID subscription, String asOf, String knownAt) {
        RequestSpecification request = given().auth().oauth2(Tokens.admin());
        if (asOf != null) {
            request = request.queryParam("asOf", asOf);
        }
        if (knownAt != null) {
            request = request.queryParam("knownAt", knownAt);
        }
        return readTree(request.when().get("/subscriptions/{id}/ledger", subscription).then().statusCode(200).extract().asString());
    }

    private static long balance(UUID subscription, Instant asOf, Instant knownAt) {
        RequestSpecification request = given().auth().oauth2(Tokens.admin());
        if (asOf != null) {
            request = request.queryParam("asOf", asOf.toString());
        }
        if (knownAt != null) {
            request = request.queryParam("knownAt", knownAt.toString());
        }
        return ((Number) request.when().get("/subscriptions/{id}/balance", subscription).then().statusCode(200).extract().path("balance"))
                .longValue();
    }

    private static JsonNode readTree(String json) {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
