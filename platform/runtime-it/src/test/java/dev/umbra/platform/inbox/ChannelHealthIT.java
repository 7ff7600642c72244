package dev.umbra.platform.inbox;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;

import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.KafkaProbe;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A channel that fails for good turns the service's liveness DOWN, so that an orchestrator restarts it (SmallRye reports the
 * failure in readiness too); readiness does not follow the consumers' connection to Kafka.
 */
@QuarkusTest
// the doomed channel fails on purpose, which SmallRye reports on its way to the failed health check
@ExpectedLog(category = "io.smallrye.reactive.messaging", level = "ERROR", message = "SRMSG18203|SRMSG00201")
@ExpectedLog(category = "io.smallrye.reactive.messaging", message = "SRMSG18228")
@TestProfile(ChannelHealthIT.OwnApplication.class)
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "inbox_health"))
class ChannelHealthIT {

    /** A failed channel stays failed: this test gets an application of its own. */
    public static class OwnApplication implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.application.name", "inbox-health-test", "mp.messaging.incoming.doomed-events.topic", DoomedConsumer.TOPIC);
        }
    }

    @Test
    void aFailedChannelTurnsLivenessDown() {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                given().get(io.quarkus.test.common.http.TestHTTPResourceManager.getManagementUri() + "/health/ready").then().statusCode(200));

        KafkaProbe.produce(DoomedConsumer.TOPIC, "1", "{}".getBytes(StandardCharsets.UTF_8), Map.of());

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                given().get(io.quarkus.test.common.http.TestHTTPResourceManager.getManagementUri() + "/health/live").then().statusCode(503).body(containsString("doomed-events")));
    }
}
