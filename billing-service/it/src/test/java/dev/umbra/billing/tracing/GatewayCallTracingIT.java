package dev.umbra.billing.tracing;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.umbra.billing.PayingUserTest;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** A traced subscription: a charge's URL names the billing key, so no span of the trace may hold it. */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "billing"), @ResourceArg(name = "outbox", value = "billing")})
class GatewayCallTracingIT extends PayingUserTest {

    private static final Pattern GATEWAY_BILLING_KEY = Pattern.compile("bk_[0-9a-f]{16}");

    @Inject
    InMemorySpanExporter spans;

    @Test
    void theTraceOfASubscriptionChargedAtTheGatewayHoldsNoBillingKey() {
        String traceId = hex(16);
        String guild = Snowflakes.random();
        given().header("traceparent", "00-" + traceId + "-" + hex(8) + "-01").auth().oauth2(Tokens.user(user.toString()))
                .contentType(ContentType.JSON)
                .body("{\"guildId\":\"" + guild + "\",\"userId\":\"" + user + "\",\"planCode\":\"PRO\",\"billingKeyId\":\"" + key + "\"}")
                .when().post("/subscriptions").then().statusCode(201);

        List<SpanData> traced = await().until(() -> spans.getFinishedSpanItems().stream()
                .filter(span -> span.getTraceId().equals(traceId)).toList(), found -> found.stream().anyMatch(s -> s.getKind() == SpanKind.SERVER));
        assertThat(traced).filteredOn(span -> span.getAttributes().asMap().values().stream().map(String::valueOf)
                .anyMatch(value -> GATEWAY_BILLING_KEY.matcher(value).find())).as("spans holding a billing key").isEmpty();
    }

    private static String hex(int bytes) {
        byte[] random = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }
}
