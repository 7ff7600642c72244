package dev.umbra.guild.outbox;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.OutboxConnectors;
import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Metrics;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The outbox's replication slot, on a database of its own so that no connector streams it before
 * this class says so: the platform migration creates the slot before the service writes, and the
 * connector's heartbeat keeps the slot of an idle database moving.
 */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = ReplicationSlotIT.DATABASE))
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicationSlotIT {

    static final String DATABASE = "guild_replication";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String SLOT = OutboxConnectors.slotName(DATABASE);

    @InjectDevstack
    Database db;

    @InjectDevstack
    Devstack devstack;

    @Test
    @Order(1)
    void eventsCommittedBeforeTheConnectorExistsStillReachKafka() {
        assertThat(db.count("select count(*) from pg_replication_slots where slot_name = ? and not active", SLOT))
                .as("the migration made the slot and nothing reads it yet").isOne();
        double writtenBefore = Metrics.scrape().sum("umbra_outbox_events_total", "event_type=\"BotInstalled\"");
        String[] guilds = {Snowflakes.random(), Snowflakes.random(), Snowflakes.random()};
        for (String guildId : guilds) {
            given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                    .body("{\"installerUserId\":\"" + Snowflakes.random() + "\"}")
                    .when().post("/guilds/{id}/installation", guildId)
                    .then().statusCode(201);
        }
        assertThat(db.count("select count(*) from outbox_event")).as("the rows live only in the WAL").isZero();
        assertThat(Metrics.scrape().sum("umbra_outbox_events_total", "event_type=\"BotInstalled\""))
                .isEqualTo((Double.isNaN(writtenBefore) ? 0 : writtenBefore) + guilds.length);
        Awaitility.await().atMost(TIMEOUT).untilAsserted(() -> assertThat(
                Metrics.scrape().sum("umbra_replication_slot_retained_wal_bytes", "slot=\"" + SLOT + "\""))
                .as("a slot nobody reads keeps the WAL of the rows just written").isPositive());
        Awaitility.await().atMost(TIMEOUT).untilAsserted(() -> assertThat(Metrics.scrape().sum("umbra_replication_slot_inactive"))
                .as("no connector streams the slot").isOne());

        devstack.streamOutbox("guild", DATABASE);
        Awaitility.await().atMost(TIMEOUT).untilAsserted(() -> assertThat(Metrics.scrape().sum("umbra_replication_slot_inactive"))
                .as("the connector streams the slot").isZero());

        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.GUILD))) {
            for (String guildId : guilds) {
                assertThat(KafkaProbe.header(topic.awaitRecord(r -> guildId.equals(r.key()), TIMEOUT), EventHeaders.EVENT_TYPE))
                        .isEqualTo("BotInstalled");
            }
        }
    }

    @Test
    @Order(2)
    void theSlotOfAnIdleDatabaseMovesWhileOtherDatabasesWrite() {
        devstack.streamOutbox("guild", DATABASE);
        Database busy = Database.of("postgres");
        busy.count("select count(*) from (select pg_logical_emit_message(false, 'filler', repeat('x', 1000)) "
                + "from generate_series(1, 2000)) wal");
        String walAfterOthersWrote = busy.text("select pg_current_wal_lsn()");

        Awaitility.await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                assertThat(db.count("select count(*) from pg_replication_slots where slot_name = ? "
                        + "and confirmed_flush_lsn >= ?::pg_lsn", SLOT, walAfterOthersWrote))
                        .as("slot %s confirmed past %s", SLOT, walAfterOthersWrote).isOne());
    }
}
