package dev.umbra.guild.lifecycle;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The service points at a port where no database listens: it answers 503 problems, fast, instead of hanging or 500. */
@QuarkusTest
@TestProfile(DatabaseDownIT.UnreachableDatabase.class)
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "guild"))
class DatabaseDownIT {

    public static class UnreachableDatabase implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "quarkus.datasource.reactive.url", "postgresql://127.0.0.1:1/guild",
                    "quarkus.flyway.migrate-at-start", "false");
        }
    }

    @Test
    void readsAnswer503WithRetryAfter() {
        given().auth().oauth2(Tokens.bot()).when().get("/guilds/{id}", "123456789012345678")
                .then().statusCode(503).contentType("application/problem+json")
                .header("Retry-After", "1")
                .body("status", equalTo(503));
    }

    @Test
    void writesAnswer503() {
        given().auth().oauth2(Tokens.bot()).contentType("application/json").body("{\"installerUserId\":\"223456789012345678\"}")
                .when().post("/guilds/{id}/installation", "123456789012345678")
                .then().statusCode(503).contentType("application/problem+json");
    }
}
