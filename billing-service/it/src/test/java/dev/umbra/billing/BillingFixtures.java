package dev.umbra.billing;

import static io.restassured.RestAssured.given;

import dev.umbra.events.EventHeaders;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Tokens;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Requests the billing ITs share: a billing key, a subscription, the events of one aggregate. */
public final class BillingFixtures {

    private BillingFixtures() {
    }

    public static Response issueKey(UUID userId) {
        return given().auth().oauth2(Tokens.user(userId.toString())).contentType(ContentType.JSON)
                .body("{\"authKey\":\"auth-" + UUID.randomUUID() + "\"}")
                .when().post("/users/{userId}/billing-keys", userId);
    }

    public static UUID newKey(UUID userId) {
        return UUID.fromString(issueKey(userId).then().statusCode(201).extract().path("id"));
    }

    public static Response subscribe(UUID userId, String guildId, String plan, UUID billingKeyId) {
        return given().auth().oauth2(Tokens.user(userId.toString())).contentType(ContentType.JSON)
                .body("{\"guildId\":\"" + guildId + "\",\"userId\":\"" + userId + "\",\"planCode\":\"" + plan
                        + "\",\"billingKeyId\":\"" + billingKeyId + "\"}")
                .when().post("/subscriptions");
    }

    /** The user pays the subscription with another of their billing keys. */
    public static Response payWith(UUID userId, UUID subscriptionId, UUID billingKeyId) {
        return given().auth().oauth2(Tokens.user(userId.toString())).contentType(ContentType.JSON)
                .body("{\"billingKeyId\":\"" + billingKeyId + "\"}")
                .when().put("/subscriptions/{id}/billing-key", subscriptionId);
    }

    /** The invoices of a subscription, as an operator reads them, newest first. */
    public static List<Map<String, Object>> invoicesOf(UUID subscriptionId) {
        return given().auth().oauth2(Tokens.admin()).when().get("/subscriptions/{id}/invoices", subscriptionId)
                .then().statusCode(200).extract().jsonPath().getList("$");
    }

    /** A refund of an invoice asked for by an operator. */
    public static Response refund(UUID invoiceId, long amount, String reason, String idempotencyKey) {
        return given().auth().oauth2(Tokens.admin()).contentType(ContentType.JSON).header("Idempotency-Key", idempotencyKey)
                .body("{\"amount\":" + amount + ",\"reason\":\"" + reason + "\"}")
                .when().post("/invoices/{id}/refunds", invoiceId);
    }

    /** The distinct events (by event id) of one type among an aggregate's records: a redelivery is not a second event. */
    public static long distinctEvents(KafkaProbe topic, String aggregateId, String eventType) {
        return ofAggregate(topic, aggregateId).stream().filter(r -> eventType.equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)))
                .map(r -> KafkaProbe.header(r, EventHeaders.EVENT_ID)).distinct().count();
    }

    /** The event types of one aggregate's records, in the order the topic holds them. */
    public static List<String> eventTypes(KafkaProbe topic, String aggregateId) {
        return ofAggregate(topic, aggregateId).stream().map(r -> KafkaProbe.header(r, EventHeaders.EVENT_TYPE)).toList();
    }

    public static List<ConsumerRecord<String, byte[]>> ofAggregate(KafkaProbe topic, String aggregateId) {
        return topic.seen().stream().filter(r -> aggregateId.equals(r.key())).toList();
    }
}
