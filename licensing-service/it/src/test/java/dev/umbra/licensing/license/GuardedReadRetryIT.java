package dev.umbra.licensing.license;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.platform.storage.DatabaseGuards;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.Metrics;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.TcpProxy;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A read the database guard retries (the pool could not connect, so the first attempt surely did not run)
 * runs the resource method again after the retry's delay, and that run still knows its caller: the token
 * and the identity are request-scoped, and the delayed attempt must resume in the request's context (the
 * platform does not propagate ArC's context through Mutiny: platform/README.md).
 */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.platform.web.ProblemMappers", message = "database unavailable|database did not answer")
@ExpectedLog(category = "dev.umbra.platform.storage.DatabaseGuards", message = "circuit opened")
@ExpectedLog(category = "dev.umbra.platform.workqueue.WorkQueues", message = "round failed")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "licensing"), @ResourceArg(name = "outbox", value = "licensing")})
class GuardedReadRetryIT {

    @InjectDevstack
    TcpProxy link;

    @Inject
    CircuitBreakerMaintenance circuits;

    @AfterEach
    void restore() {
        link.restore();
        circuits.reset(DatabaseGuards.DATABASE);
    }

    @Test
    void aRetriedReadAnswersItsCallerAndNeverA500() throws Exception {
        String guildId = Snowflakes.random();
        String bot = Tokens.bot();
        List<Integer> answers = new ArrayList<>();
        int retriedAndAnswered = 0;
        // The database away until a request's first attempt has failed to connect, then back: a later attempt
        // succeeds, unless every attempt fell in the outage (a 503). Until it happened a few times.
        for (int round = 0; round < 20 && retriedAndAnswered < 3; round++) {
            given().auth().oauth2(bot).when().get("/guilds/{id}/license", guildId).then().statusCode(404);
            // the previous rounds' failures must not open the circuit on this one
            circuits.reset(DatabaseGuards.DATABASE);
            double retriesBefore = retries();
            link.cut();
            CompletableFuture<Integer> status = CompletableFuture.supplyAsync(
                    () -> given().auth().oauth2(bot).when().get("/guilds/{id}/license", guildId).statusCode());
            // back once the guard has seen the first attempt fail (after the pool's own reconnect attempts) and retries
            Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                    .until(() -> retries() > retriesBefore || status.isDone());
            link.restore();
            int answer = status.get(30, TimeUnit.SECONDS);
            answers.add(answer);
            if (answer == 404 && retries() > retriesBefore) {
                retriedAndAnswered++;
            }
        }
        assertThat(answers).as("a 404 once the read ran, or a 503 when every attempt failed").isSubsetOf(404, 503);
        assertThat(retriedAndAnswered).as("reads answered after a retry, in " + answers.size() + " rounds").isGreaterThanOrEqualTo(3);
    }

    private static double retries() {
        double count = Metrics.scrape().sum("ft_retry_retries_total", "method=\"" + DatabaseGuards.DATABASE + "\"");
        return Double.isNaN(count) ? 0 : count;
    }
}
