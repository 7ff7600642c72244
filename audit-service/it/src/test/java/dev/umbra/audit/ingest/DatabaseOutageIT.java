package dev.umbra.audit.ingest;

import static dev.umbra.audit.AuditFixtures.record;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.umbra.audit.AuditFixtures;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.licensing.LicenseExtended;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.events.recovery.SnapshotCreated;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.TcpProxy;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResourceManager;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Postgres goes away in the middle of a burst: once it is back every event is stored once and attributed; none is dead-lettered. */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.platform.inbox.Inbox", message = "waits at")
@ExpectedLog(category = "dev.umbra.platform.workqueue.WorkQueues", message = "round failed")
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "audit"))
class DatabaseOutageIT {

    @InjectDevstack
    Database db;

    private static final Duration WAIT = Duration.ofSeconds(90);

    @InjectDevstack
    TcpProxy link;

    @AfterEach
    void restore() {
        link.restore();
    }

    private static double inboxMetric(String name, String label) {
        String metrics = RestAssured.given().get(TestHTTPResourceManager.getManagementUri() + "/metrics").then().statusCode(200).extract().asString();
        return metrics.lines().filter(line -> line.startsWith(name + "{") && line.contains("consumer=\"audit\"") && line.contains(label))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    @Test
    void eventsThatArriveWhileTheDatabaseIsAwayAreStoredOnceWhenItIsBack() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        double deadLetteredBefore = inboxMetric("umbra_inbox_events_total", "outcome=\"dead_lettered\"");
        Map<UUID, String> guildOfEvent = new LinkedHashMap<>();
        List<ProducerRecord<String, byte[]>> beforeGrant = new ArrayList<>();
        List<ProducerRecord<String, byte[]>> duringOutage = new ArrayList<>();
        List<UUID> extensions = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String guild = Snowflakes.random();
            UUID license = UUID.randomUUID();
            UUID extended = UUID.randomUUID();
            UUID granted = UUID.randomUUID();
            UUID snapshot = UUID.randomUUID();
            extensions.add(extended);
            guildOfEvent.put(extended, guild);
            guildOfEvent.put(granted, guild);
            guildOfEvent.put(snapshot, guild);
            beforeGrant.add(record(new LicenseExtended(license, now.plus(30, ChronoUnit.DAYS)), extended, now));
            duringOutage.add(record(new LicenseGranted(license, guild, "PRO"), granted, now));
            duringOutage.add(record(new SnapshotCreated(UUID.randomUUID(), guild, "manual"), snapshot, now));
        }
        KafkaProbe.produceAll(beforeGrant);
        String extendedIds = String.join(",", extensions.stream().map(UUID::toString).toList());
        await().atMost(WAIT).until(() -> db.count("select count(*) from audit_log where event_id = any(string_to_array(?, ',')::uuid[])",
                extendedIds) == beforeGrant.size());

        double failedBefore = inboxMetric("umbra_inbox_failures_total", "fault=\"transient\"");
        link.cut();
        // the grants (which back-fill the extensions), new events, and the extensions delivered again
        duringOutage.addAll(beforeGrant);
        KafkaProbe.produceAll(duringOutage);
        // the other tests of the class share the application and its counters: this outage's own failures
        await().atMost(WAIT).until(() -> inboxMetric("umbra_inbox_failures_total", "fault=\"transient\"") > failedBefore);
        link.restore();

        String ids = String.join(",", guildOfEvent.keySet().stream().map(UUID::toString).toList());
        await().atMost(WAIT).until(() -> db.count("select count(*) from audit_guild where event_id = any(string_to_array(?, ',')::uuid[])", ids)
                == guildOfEvent.size());
        assertThat(db.count("select count(*) from audit_log where event_id = any(string_to_array(?, ',')::uuid[])", ids))
                .isEqualTo(guildOfEvent.size());
        assertThat(db.count("select count(*) from processed_event where consumer = 'audit' and event_id = any(string_to_array(?, ',')::uuid[])", ids))
                .isEqualTo(guildOfEvent.size());
        guildOfEvent.forEach((id, guild) -> assertThat(db.text("select guild_id from audit_guild where event_id = ?", id)).isEqualTo(guild));
        assertThat(inboxMetric("umbra_inbox_events_total", "outcome=\"dead_lettered\"")).isEqualTo(deadLetteredBefore);
    }

    @Test
    void aReplayCutShortByAnOutageCarriesOnWhenTheDatabaseIsBackAndPublishesEveryEvent() throws Exception {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        String aggregate = "probe-" + UUID.randomUUID();
        List<String> ids = new ArrayList<>();
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            UUID id = UUID.randomUUID();
            ids.add(id.toString());
            records.add(AuditFixtures.recordedAt(record("audit_probe", aggregate, "ProbeReported", "{\"n\":" + i + "}", id, now), now.plusMillis(i)));
        }
        KafkaProbe.produceAll(records);
        await().atMost(WAIT).until(() -> db.count("select count(*) from audit_log where aggregate_id = ?", aggregate) == 9);
        long failuresLogged = roundFailuresLogged();

        String replay = given().auth().oauth2(Tokens.admin()).contentType(ContentType.JSON)
                .body("{\"aggregateType\":\"audit_probe\",\"aggregateId\":\"" + aggregate + "\"}").when().post("/audit/replays")
                .then().statusCode(202).extract().path("id");
        try (KafkaProbe topic = KafkaProbe.read("umbra.audit_probe")) {
            // the first batch is out: the database goes away in the middle of the replay
            topic.awaitRecord(r -> replay.equals(KafkaProbe.header(r, EventHeaders.REPLAY)), WAIT);
            link.cut();
            await().atMost(WAIT).until(() -> roundFailuresLogged() > failuresLogged);
            link.restore();

            await().atMost(WAIT).until(() -> db.text("select status from replay where id = ?::uuid", replay).equals("COMPLETED"));
            assertThat(db.count("select published from replay where id = ?::uuid", replay)).isEqualTo(9);
            // the item's outcome is recorded just after the replay's last transaction
            await().atMost(WAIT).until(() -> db.text("select status from work_item where queue = 'audit-replay' and item_key = ?", replay)
                    .equals("done"));
            // every event at least once (a batch cut short is published again), in order per aggregate
            await().atMost(WAIT).until(() -> topic.seen().stream().filter(r -> replay.equals(KafkaProbe.header(r, EventHeaders.REPLAY)))
                    .map(r -> KafkaProbe.header(r, EventHeaders.EVENT_ID)).distinct().toList(), seen -> seen.equals(ids));
        }
        assertThat(db.count("select count(*) from audit_log where aggregate_id = ?", aggregate)).isEqualTo(9);
    }

    private static long roundFailuresLogged() throws java.io.IOException {
        return java.nio.file.Files.readAllLines(dev.umbra.testing.LogGuard.TEST_LOG).stream()
                .filter(line -> line.contains("work queue audit-replay: round failed")).count();
    }
}
