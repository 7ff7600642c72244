package dev.umbra.licensing.license;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InboxProbe;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "licensing"), @ResourceArg(name = "outbox", value = "licensing")})
class LicenseSweeperIT {

    @InjectDevstack
    Database db;

    @InjectDevstack
    InboxProbe inbox;

    @Inject
    LicenseSweeper sweeper;

    @Test
    void twoSweepersAtOnceDowngradeEachLapsedLicenseExactlyOnce() throws Exception {
        Instant lapsed = Instant.now().minus(Duration.ofDays(10));
        List<String> guilds = new ArrayList<>();
        List<UUID> events = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            String guildId = Snowflakes.random();
            guilds.add(guildId);
            events.add(OutboxRecords.publish(new SubscriptionStarted(UUID.randomUUID(), guildId, "PRO", lapsed), Instant.now()));
        }
        inbox.awaitProcessed("licensing", events);

        // a sweep claims five items (the test profile's batch): the two sweepers claim at once, round after round, and each
        // must take items the other did not
        int swept = 0;
        int roundsBothSwept = 0;
        while (true) {
            CompletableFuture<Integer> one = CompletableFuture.supplyAsync(this::sweepOnce);
            CompletableFuture<Integer> other = CompletableFuture.supplyAsync(this::sweepOnce);
            int first = one.get();
            int second = other.get();
            if (first + second == 0) {
                break;
            }
            roundsBothSwept += first > 0 && second > 0 ? 1 : 0;
            swept += first + second;
        }

        assertThat(swept).isGreaterThanOrEqualTo(guilds.size());
        assertThat(roundsBothSwept).as("rounds in which both sweepers swept").isPositive();
        List<String> licenseIdsSwept = db.rows("select license_id::text from license where guild_id = any(string_to_array(?, ','))",
                String.join(",", guilds)).stream().map(row -> row.get(0)).toList();
        assertThat(db.count("select count(*) from work_item where queue = 'license-sweep' and item_key = any(string_to_array(?, ',')) "
                + "and status = 'done' and attempts = 1", String.join(",", licenseIdsSwept)))
                .as("each license's item tried once, by one of the sweepers").isEqualTo(guilds.size());
        for (String guildId : guilds) {
            given().auth().oauth2(Tokens.bot()).when().get("/guilds/{id}/license", guildId)
                    .then().statusCode(200).body("plan", org.hamcrest.Matchers.equalTo("FREE"));
        }
        List<String> licenseIds = guilds.stream()
                .map(g -> given().auth().oauth2(Tokens.bot()).get("/guilds/{id}/license", g).jsonPath().getString("licenseId"))
                .toList();
        try (KafkaProbe licenses = KafkaProbe.read(Topics.of(Aggregates.LICENSE))) {
            for (String licenseId : licenseIds) {
                licenses.awaitRecord(r -> licenseId.equals(r.key()) && "LicenseDowngraded".equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)),
                        Duration.ofSeconds(30));
            }
            assertThat(licenses.seen())
                    .filteredOn(r -> licenseIds.contains(r.key()) && "LicenseDowngraded".equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)))
                    .hasSize(licenseIds.size());
        }
    }

    private int sweepOnce() {
        try {
            return VertxContextSupport.subscribeAndAwait(() -> sweeper.sweep());
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
