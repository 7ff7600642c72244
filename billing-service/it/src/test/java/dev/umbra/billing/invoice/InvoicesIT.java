package dev.umbra.billing.invoice;

import static dev.umbra.billing.BillingFixtures.distinctEvents;
import static dev.umbra.billing.BillingFixtures.invoicesOf;
import static dev.umbra.billing.BillingFixtures.newKey;
import static dev.umbra.billing.BillingFixtures.ofAggregate;
import static dev.umbra.billing.BillingFixtures.subscribe;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

import com.fasterxml.jackson.databind.JsonNode;
import dev.umbra.billing.PayingUserTest;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Invoices of the charges made through the API: one per success, none for a failure, each announced once; who reads them. */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
class InvoicesIT extends PayingUserTest {

    @Test
    void theFirstChargeAndAnUpgradeHaveOneInvoiceEachAnnouncedOnceWithTheCatalogueFields() {
        Map<String, Object> started = subscribe(user, Snowflakes.random(), "PRO", key).then().statusCode(201).extract().jsonPath().getMap("$");
        UUID subscription = UUID.fromString((String) started.get("id"));
        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body("{\"planCode\":\"PREMIUM\"}")
                .when().put("/subscriptions/{id}/plan", subscription).then().statusCode(200);
        long upgradePaid = db.count("select paid_amount from payment where subscription_id = ? and purpose = 'UPGRADE_PREMIUM'", subscription);

        List<Map<String, Object>> invoices = invoicesOf(subscription);
        assertThat(invoices).hasSize(2);
        Map<String, Object> upgrade = invoices.get(0);
        Map<String, Object> first = invoices.get(1);
        assertThat(first.get("total")).isEqualTo(9_900);
        assertThat(first.get("status")).isEqualTo("PAID");
        assertThat(first.get("currency")).isEqualTo("KRW");
        assertThat(instant(first.get("periodStart"))).isEqualTo(instant(started.get("periodStart")));
        assertThat(instant(first.get("periodEnd"))).isEqualTo(instant(started.get("periodEnd")));
        assertThat(first.get("lines")).asList().singleElement()
                .satisfies(line -> assertThat(((Map<?, ?>) line).get("description")).isEqualTo("Pro plan, period 0"));
        assertThat(((Number) upgrade.get("total")).longValue()).isEqualTo(upgradePaid).isPositive();
        assertThat(instant(upgrade.get("periodEnd"))).isEqualTo(instant(started.get("periodEnd")));
        assertThat(db.count("select count(*) from payment where subscription_id = ? and status = 'SUCCEEDED'", subscription)).isEqualTo(2);
        assertThat(db.count("select count(distinct payment_id) from invoice where subscription_id = ?", subscription)).isEqualTo(2);

        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.INVOICE))) {
            for (Map<String, Object> invoice : invoices) {
                String id = (String) invoice.get("id");
                await().atMost(WAIT).until(() -> distinctEvents(topic, id, "InvoiceGenerated") == 1);
                JsonNode generated = payload(ofAggregate(topic, id).get(0));
                assertThat(generated.path("invoice_id").asText()).isEqualTo(id);
                assertThat(generated.path("subscription_id").asText()).isEqualTo(subscription.toString());
                assertThat(instant(generated.path("period_start").asText())).isEqualTo(instant(invoice.get("periodStart")));
                assertThat(instant(generated.path("period_end").asText())).isEqualTo(instant(invoice.get("periodEnd")));
                assertThat(generated.path("total").decimalValue().longValueExact()).isEqualTo(((Number) invoice.get("total")).longValue());
                assertThat(generated.path("currency").asText()).isEqualTo("KRW");
            }
        }
        // each invoice booked its charge in the ledger
        assertThat(db.text("select string_agg(kind || ':' || amount, ',' order by recorded_at) from ledger_entry where subscription_id = ?",
                subscription)).isEqualTo("CHARGE:9900,CHARGE:" + upgradePaid);
    }

    /** To the microsecond, as PostgreSQL stores it: the subscription's answer shows the clock's nanoseconds. */
    private static Instant instant(Object iso) {
        return Instant.parse((String) iso).truncatedTo(ChronoUnit.MICROS);
    }

    @Test
    void aFailedChargeHasNoInvoice() {
        gateway.decline(1);
        subscribe(user, Snowflakes.random(), "PRO", key).then().statusCode(402);
        UUID declined = UUID.fromString(db.text("select id::text from subscription where user_id = ? and status = 'CANCELED'", user));

        UUID active = UUID.fromString(subscribe(user, Snowflakes.random(), "PRO", key).then().statusCode(201).extract().path("id"));
        gateway.decline(1);
        given().auth().oauth2(Tokens.user(user.toString())).contentType(ContentType.JSON).body("{\"planCode\":\"PREMIUM\"}")
                .when().put("/subscriptions/{id}/plan", active).then().statusCode(402);

        assertThat(invoicesOf(declined)).isEmpty();
        assertThat(invoicesOf(active)).hasSize(1);
        assertThat(db.count("select count(*) from ledger_entry where subscription_id = ?", declined)).isZero();
        given().auth().oauth2(Tokens.user(user.toString())).when().get("/users/{userId}/invoices", user).then().statusCode(200)
                .body("$", hasSize(1));
    }

    @Test
    void aUserReadsOnlyTheirOwnInvoicesAndOperatorsAndTheBotReadAny() {
        UUID subscription = UUID.fromString(subscribe(user, Snowflakes.random(), "PRO", key).then().statusCode(201).extract().path("id"));
        String invoice = (String) invoicesOf(subscription).get(0).get("id");
        UUID stranger = UUID.randomUUID();
        newKey(stranger);

        given().auth().oauth2(Tokens.user(user.toString())).when().get("/invoices/{id}", invoice).then().statusCode(200)
                .body("subscriptionId", equalTo(subscription.toString())).body("userId", equalTo(user.toString()));
        given().auth().oauth2(Tokens.bot()).when().get("/invoices/{id}", invoice).then().statusCode(200);
        given().auth().oauth2(Tokens.admin()).when().get("/users/{userId}/invoices", user).then().statusCode(200).body("$", hasSize(1));

        given().auth().oauth2(Tokens.user(stranger.toString())).when().get("/invoices/{id}", invoice).then().statusCode(403)
                .contentType("application/problem+json");
        given().auth().oauth2(Tokens.user(stranger.toString())).when().get("/users/{userId}/invoices", user).then().statusCode(403)
                .contentType("application/problem+json");
        given().auth().oauth2(Tokens.user(stranger.toString())).when().get("/subscriptions/{id}/invoices", subscription).then().statusCode(200)
                .body("$", hasSize(0));
        given().auth().oauth2(Tokens.admin()).when().get("/invoices/{id}", UUID.randomUUID()).then().statusCode(404)
                .contentType("application/problem+json");
        given().auth().oauth2(Tokens.admin()).when().get("/invoices/not-a-uuid").then().statusCode(404);
        given().when().get("/invoices/{id}", invoice).then().statusCode(401);
    }
}
