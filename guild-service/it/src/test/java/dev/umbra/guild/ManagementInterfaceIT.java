package dev.umbra.guild;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import dev.umbra.testing.DevstackResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import org.junit.jupiter.api.Test;

/** Health, metrics and the API description answer on the management port only, never on the public one. */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "guild"), @ResourceArg(name = "outbox", value = "guild")})
class ManagementInterfaceIT {

    // The management interface's root path is /q: these are /q/metrics, /q/health/ready and /q/openapi.
    @TestHTTPResource(value = "/metrics", management = true)
    URL metrics;

    @TestHTTPResource(value = "/health/ready", management = true)
    URL readiness;

    @TestHTTPResource(value = "/openapi", management = true)
    URL openApi;

    @Test
    void metricsHealthAndTheApiDescriptionAreServedOnTheManagementPort() {
        given().when().get(metrics).then().statusCode(200).body(containsString("jvm_threads_live_threads"));
        given().when().get(readiness).then().statusCode(200).body("status", equalTo("UP"));
        given().accept("application/json").when().get(openApi).then().statusCode(200).body("openapi", startsWith("3."));
    }

    @Test
    void thePublicPortDoesNotServeThem() {
        for (String path : new String[] {"/q/metrics", "/q/health", "/q/health/ready", "/q/openapi"}) {
            given().when().get(path).then().statusCode(404);
        }
    }
}
