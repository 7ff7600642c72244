package dev.umbra.guild;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.testing.DevstackResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import org.junit.jupiter.api.Test;

/** Health, metrics and the API description answer on the management port only, never on the public one. */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "guild"))
class ManagementInterfaceIT {

    @TestHTTPResource(value = "/", management = true)
    URL management;

    @Test
    void metricsAndHealthAreServedOnTheManagementPort() {
        given().baseUri(management.toString()).when().get("/q/metrics").then().statusCode(200)
                .body(containsString("http_server_requests_seconds"));
        given().baseUri(management.toString()).when().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
        given().baseUri(management.toString()).accept("application/json").when().get("/q/openapi").then().statusCode(200);
    }

    @Test
    void thePublicPortDoesNotServeThem() {
        for (String path : new String[] {"/q/metrics", "/q/health", "/q/health/ready", "/q/openapi"}) {
            given().when().get(path).then().statusCode(404);
        }
    }
}
