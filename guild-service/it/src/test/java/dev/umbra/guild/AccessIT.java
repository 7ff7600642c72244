package dev.umbra.guild;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.devstack.JwtKeys;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;

/** Who may call at all: every refusal is problem+json, and a refused write stores nothing. */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "guild"), @ResourceArg(name = "outbox", value = "guild")})
class AccessIT {

    @InjectDevstack
    Database db;

    @Test
    void everyUnacceptableTokenIsA401ProblemAndStoresNothing() {
        Tokens.unacceptable().forEach((why, request) -> {
            String guildId = Snowflakes.random();
            request.contentType(ContentType.JSON).body("{\"installerUserId\":\"" + Snowflakes.random() + "\"}")
                    .when().post("/guilds/{id}/installation", guildId)
                    .then().statusCode(401).contentType("application/problem+json")
                    .header("WWW-Authenticate", "Bearer")
                    .body("status", equalTo(401)).body("title", equalTo("Unauthorized"));
            assertThat(db.count("select count(*) from guild where guild_id = ?", guildId)).as(why).isZero();
        });
    }

    @Test
    void aTokenForTheRightAudienceIsAccepted() {
        given().auth().oauth2(Tokens.botFor(JwtKeys.AUDIENCE)).contentType(ContentType.JSON)
                .body("{\"installerUserId\":\"" + Snowflakes.random() + "\"}")
                .when().post("/guilds/{id}/installation", Snowflakes.random()).then().statusCode(201);
    }

    @Test
    void aRoleThatMayNotIsA403Problem() {
        String guildId = Snowflakes.random();
        given().auth().oauth2(Tokens.user(Snowflakes.random())).contentType(ContentType.JSON)
                .body("{\"installerUserId\":\"" + Snowflakes.random() + "\"}")
                .when().post("/guilds/{id}/installation", guildId)
                .then().statusCode(403).contentType("application/problem+json").body("status", equalTo(403));
        given().auth().oauth2(Tokens.admin()).when().get("/guilds/{id}", guildId)
                .then().statusCode(403).contentType("application/problem+json");
        assertThat(db.count("select count(*) from guild where guild_id = ?", guildId)).isZero();
    }

    @Test
    void aBodyThatIsNotJsonIsA415Problem() {
        String guildId = Snowflakes.random();
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.TEXT).body("{\"installerUserId\":\"" + Snowflakes.random() + "\"}")
                .when().post("/guilds/{id}/installation", guildId)
                .then().statusCode(415).contentType("application/problem+json").body("status", equalTo(415));
        given().auth().oauth2(Tokens.bot()).contentType("application/xml").body("<installerUserId/>")
                .when().post("/users").then().statusCode(415).contentType("application/problem+json");
        assertThat(db.count("select count(*) from guild where guild_id = ?", guildId)).isZero();
    }

    @Test
    void aBodyOfTheWrongShapeIsA400Problem() {
        String guildId = Snowflakes.random();
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"installerUserId\":{\"id\":1}}")
                .when().post("/guilds/{id}/installation", guildId)
                .then().statusCode(400).contentType("application/problem+json").body("status", equalTo(400));
        assertThat(db.count("select count(*) from guild where guild_id = ?", guildId)).isZero();
    }
}
