package dev.umbra.audit.replay;

import static dev.umbra.audit.AuditFixtures.record;
import static dev.umbra.audit.AuditFixtures.recordedAt;
import static dev.umbra.audit.AuditFixtures.stored;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.umbra.events.EventHeaders;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** Operators re-publish stored events: in recorded order, as they were, masked ones refused, one replay of a scope at a time. */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.platform.workqueue.WorkQueue", message = "its lease ran out")
@ExpectedLog(category = "dev.umbra.audit.replay.ReplayWorker", message = "failed after")
// the event Kafka refuses for good, on each attempt, and the item given up
@ExpectedLog(category = "io.smallrye.reactive.messaging.kafka", level = "ERROR", message = "RecordTooLargeException")
@ExpectedLog(category = "dev.umbra.platform.workqueue.WorkQueue", message = "is dead: gave up after 8 attempts: replay round failed: .*RecordTooLargeException")
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "audit"))
class ReplayIT {

    @InjectDevstack
    Database db;

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String TOPIC = "umbra.audit_probe";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** {@code count} events of one new probe aggregate, recorded a millisecond apart; the third's payload carries a secret (masked). */
    private List<UUID> storedEvents(String aggregateId, int count) {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        List<UUID> ids = new ArrayList<>();
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            UUID id = UUID.randomUUID();
            ids.add(id);
            String payload = i == 2 ? "{\"n\":" + i + ",\"apiKey\":\"k-" + UUID.randomUUID() + "\"}" : "{\"n\":" + i + ",\"note\":\"kept\"}";
            records.add(recordedAt(record("audit_probe", aggregateId, "ProbeReported", payload, id, now.plusSeconds(i)), now.plusMillis(i)));
        }
        KafkaProbe.produceAll(records);
        await().atMost(WAIT).until(() -> ids.stream().mapToLong(id -> stored(db, id)).sum() == count);
        return ids;
    }

    private static Response ask(String body) {
        return given().auth().oauth2(Tokens.admin()).contentType(ContentType.JSON).body(body).when().post("/audit/replays");
    }

    private static String finished(String replay) {
        return await().atMost(WAIT).until(() -> given().auth().oauth2(Tokens.admin()).get("/audit/replays/{id}", replay).then().statusCode(200)
                .extract().path("status"), status -> !status.equals("QUEUED") && !status.equals("RUNNING"));
    }

    @Test
    void eventsOfOneTransactionShareTheirCommitAndAreReplayedInTheirAggregatesOrderNotTheirIds() {
        String aggregate = "probe-" + UUID.randomUUID();
        Instant committed = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        // ids in descending order: the reverse of the sequence, so an order by id alone would publish them backwards
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(new UUID(Long.MAX_VALUE - i, ThreadLocalRandom.current().nextLong()));
        }
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            ProducerRecord<String, byte[]> record = recordedAt(record("audit_probe", aggregate, "ProbeReported", "{\"n\":" + i + "}", ids.get(i),
                    committed), committed);
            record.headers().add(EventHeaders.SEQUENCE, Long.toString(i + 1).getBytes(StandardCharsets.UTF_8));
            records.add(record);
        }
        KafkaProbe.produceAll(records);
        await().atMost(WAIT).until(() -> ids.stream().mapToLong(id -> stored(db, id)).sum() == ids.size());

        String replay = ask("{\"aggregateType\":\"audit_probe\",\"aggregateId\":\"" + aggregate + "\"}").then().statusCode(202)
                .extract().path("id");
        assertThat(finished(replay)).isEqualTo("COMPLETED");
        try (KafkaProbe topic = KafkaProbe.read(TOPIC)) {
            topic.awaitRecord(r -> replay.equals(KafkaProbe.header(r, EventHeaders.REPLAY))
                    && ids.get(ids.size() - 1).toString().equals(KafkaProbe.header(r, EventHeaders.EVENT_ID)), WAIT);
            assertThat(topic.seen().stream().filter(r -> replay.equals(KafkaProbe.header(r, EventHeaders.REPLAY)))
                    .map(r -> KafkaProbe.header(r, EventHeaders.EVENT_ID)).toList())
                    .containsExactlyElementsOf(ids.stream().map(UUID::toString).toList());
        }
    }

    @Test
    void aReplayOfOneAggregatePublishesItsEventsAsTheyWereInRecordedOrderAndChangesNoStoredRow() throws Exception {
        String aggregate = "probe-" + UUID.randomUUID();
        List<UUID> ids = storedEvents(aggregate, 5);
        // and one recorded 20 days ago: within the consumers' dedupe horizon (30 days), but a consumer lagging more than
        // the 10 days left when the copy reaches it may have forgotten the original
        UUID old = UUID.randomUUID();
        Instant longAgo = Instant.now().minus(20, ChronoUnit.DAYS).truncatedTo(ChronoUnit.MILLIS);
        KafkaProbe.produceAll(List.of(recordedAt(record("audit_probe", aggregate, "ProbeReported", "{\"n\":-1}", old, longAgo), longAgo)));
        await().atMost(WAIT).until(() -> stored(db, old) == 1);
        long rowsBefore = db.count("select count(*) from audit_log where aggregate_id = ?", aggregate);

        String replay = ask("{\"aggregateType\":\"audit_probe\",\"aggregateId\":\"" + aggregate + "\"}").then().statusCode(202)
                .header("Location", org.hamcrest.Matchers.containsString("/audit/replays/"))
                .body("status", equalTo("QUEUED")).body("total", equalTo(6)).extract().path("id");
        assertThat(finished(replay)).isEqualTo("COMPLETED");
        given().auth().oauth2(Tokens.admin()).get("/audit/replays/{id}", replay).then().statusCode(200)
                .body("published", equalTo(4)).body("refusedMasked", equalTo(1)).body("refusedOld", equalTo(1))
                .body("note", org.hamcrest.Matchers.containsString("masked")).body("note", org.hamcrest.Matchers.containsString("horizon"));

        try (KafkaProbe topic = KafkaProbe.read(TOPIC)) {
            topic.awaitRecord(r -> replay.equals(KafkaProbe.header(r, EventHeaders.REPLAY)) && ids.get(4).toString()
                    .equals(KafkaProbe.header(r, EventHeaders.EVENT_ID)), WAIT);
            List<ConsumerRecord<String, byte[]>> originals = topic.seen().stream()
                    .filter(r -> aggregate.equals(r.key()) && KafkaProbe.header(r, EventHeaders.REPLAY) == null).toList();
            List<ConsumerRecord<String, byte[]>> replayed = topic.seen().stream()
                    .filter(r -> replay.equals(KafkaProbe.header(r, EventHeaders.REPLAY))).toList();
            // in recorded order, the masked third one and the old one left out
            assertThat(replayed).extracting(r -> KafkaProbe.header(r, EventHeaders.EVENT_ID))
                    .containsExactly(ids.get(0).toString(), ids.get(1).toString(), ids.get(3).toString(), ids.get(4).toString());
            for (ConsumerRecord<String, byte[]> copy : replayed) {
                ConsumerRecord<String, byte[]> original = originals.stream().filter(r -> KafkaProbe.header(r, EventHeaders.EVENT_ID)
                        .equals(KafkaProbe.header(copy, EventHeaders.EVENT_ID))).findFirst().orElseThrow();
                assertThat(copy.key()).isEqualTo(original.key());
                assertThat(copy.partition()).isEqualTo(original.partition());
                // a copy has no source block: it carries the original's commit in a header, so consumers record it as before, and
                // is stamped when it was sent, so that the topic's retention keeps it as long as any record sent then
                assertThat(KafkaProbe.header(copy, EventHeaders.SOURCE)).isNull();
                long committed = JSON.readTree(KafkaProbe.header(original, EventHeaders.SOURCE)).path("ts_ms").longValue();
                assertThat(Instant.parse(KafkaProbe.header(copy, EventHeaders.COMMITTED_AT)).toEpochMilli()).isEqualTo(committed);
                assertThat(copy.timestamp()).isGreaterThanOrEqualTo(original.timestamp()).isGreaterThan(committed);
                assertThat(JSON.readTree(copy.value())).isEqualTo(JSON.readTree(original.value()));
                for (String header : List.of(EventHeaders.EVENT_TYPE, EventHeaders.AGGREGATE_TYPE, EventHeaders.OCCURRED_AT,
                        EventHeaders.SCHEMA_VERSION)) {
                    assertThat(KafkaProbe.header(copy, header)).as(header).isEqualTo(KafkaProbe.header(original, header));
                }
            }
        }

        // the audit consumer read the copies too (a later event of the aggregate, same partition, is stored) and skipped them
        UUID later = storedEvents(aggregate, 1).get(0);
        assertThat(stored(db, later)).isOne();
        assertThat(db.count("select count(*) from audit_log where aggregate_id = ?", aggregate)).isEqualTo(rowsBefore + 1);
        ids.forEach(id -> assertThat(stored(db, id)).isOne());
    }

    @Test
    void oneReplayOfAScopeAtATimeAndAnyCanBeCanceled() throws Exception {
        String aggregate = "probe-" + UUID.randomUUID();
        storedEvents(aggregate, 12);
        String body = "{\"aggregateType\":\"audit_probe\",\"aggregateId\":\"" + aggregate + "\"}";

        ExecutorService clients = Executors.newFixedThreadPool(6);
        List<Future<Response>> answers = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            answers.add(clients.submit(() -> ask(body)));
        }
        List<Integer> statuses = new ArrayList<>();
        String replay = null;
        for (Future<Response> answer : answers) {
            Response response = answer.get();
            statuses.add(response.statusCode());
            if (response.statusCode() == 202) {
                replay = response.path("id");
            } else {
                assertThat(response.contentType()).startsWith("application/problem+json");
            }
        }
        clients.shutdown();
        assertThat(statuses).containsOnlyOnce(202).containsOnly(202, 409);
        assertThat(db.count("select count(*) from replay where scope = ?", "audit_probe/" + aggregate + "/*/*")).isOne();

        // 12 events, 3 a round a second: still running
        given().auth().oauth2(Tokens.admin()).when().delete("/audit/replays/{id}", replay).then().statusCode(200)
                .body("status", equalTo("CANCELED"));
        assertThat(finished(replay)).isEqualTo("CANCELED");
        given().auth().oauth2(Tokens.admin()).when().delete("/audit/replays/{id}", replay).then().statusCode(409)
                .contentType("application/problem+json");
        String replayId = replay;
        await().atMost(WAIT).until(() -> db.text("select status from work_item where queue = 'audit-replay' and item_key = ?", replayId)
                .equals("done"));
        assertThat(db.count("select published + refused_masked from replay where id = ?::uuid", replay)).isLessThan(12);

        // the scope is free again
        ask(body).then().statusCode(202);
    }

    @Test
    void aReplayWhoseRoundsKeepKillingTheirWorkerEndsFailedInsteadOfRunningForEver() {
        String aggregate = "probe-" + UUID.randomUUID();
        storedEvents(aggregate, 12);
        String replay = ask("{\"aggregateType\":\"audit_probe\",\"aggregateId\":\"" + aggregate + "\"}").then().statusCode(202)
                .extract().path("id");
        // as if four workers in a row had died during its rounds: the next claim hands it to the worker as abandoned
        db.execute("update work_item set status = 'leased', lease_until = now() - interval '1 second', lease_token = nextval('work_item_lease_token'), "
                + "try_started = true, abandoned_claims = 4 where queue = 'audit-replay' and item_key = ?", replay);

        assertThat(finished(replay)).isEqualTo("FAILED");
        assertThat(db.text("select note from replay where id = ?::uuid", replay)).contains("kill or hang the worker");
        // the replay's end and the item's are two writes, one after the other
        await().atMost(WAIT).until(() -> db.text("select status from work_item where queue = 'audit-replay' and item_key = ?", replay)
                .equals("dead"));
    }

    @Test
    void aReplayKafkaRefusesForGoodEndsFailedAfterItsLastAttemptInsteadOfRunningForEver() {
        String aggregate = "probe-" + UUID.randomUUID();
        List<UUID> ids = storedEvents(aggregate, 4);
        // an event too large for the producer's max.request.size (1 MB): Kafka refuses it on every attempt
        UUID tooLarge = UUID.randomUUID();
        db.execute("insert into audit_log select (jsonb_populate_record(null::audit_log, to_jsonb(a) || jsonb_build_object('event_id', ?::text, "
                + "'recorded_at', a.recorded_at + interval '1 second', 'payload', jsonb_build_object('n', repeat('x', 2000000))))).* "
                + "from audit_log a where event_id = ?::uuid", tooLarge.toString(), ids.get(3).toString());
        String replay = ask("{\"aggregateType\":\"audit_probe\",\"aggregateId\":\"" + aggregate + "\"}").then().statusCode(202)
                .extract().path("id");
        String item = "select attempts || ' ' || status from work_item where queue = 'audit-replay' and item_key = ?";
        await().atMost(WAIT).until(() -> db.text(item, replay).equals("1 pending"));
        assertThat(db.text("select status from replay where id = ?::uuid", replay)).isEqualTo("RUNNING");

        // the attempts between, without their backoff: the next one is the last
        db.execute("update work_item set attempts = 7, failures = 7, due_at = now(), ready_at = now() where queue = 'audit-replay' and item_key = ? "
                + "and status = 'pending'", replay);

        assertThat(finished(replay)).isEqualTo("FAILED");
        assertThat(db.text("select note from replay where id = ?::uuid", replay)).contains("gave up after 8 failed rounds")
                .contains("RecordTooLargeException");
        await().atMost(WAIT).until(() -> db.text(item, replay).equals("8 dead"));
        // the batch before it went out, and only that
        assertThat(db.count("select published from replay where id = ?::uuid", replay)).isEqualTo(2);
    }

    @Test
    void badRequestsAreProblemsAndStartNothing() {
        long before = db.count("select count(*) from replay");
        ask("{}").then().statusCode(400).contentType("application/problem+json");
        ask("{\"aggregateId\":\"x\"}").then().statusCode(400).contentType("application/problem+json");
        ask("{\"from\":\"2026-02-01T00:00:00Z\",\"to\":\"2026-01-01T00:00:00Z\"}").then().statusCode(400);
        ask("{\"from\":\"soon\",\"to\":\"2026-01-01T00:00:00Z\"}").then().statusCode(400);
        ask("[1]").then().statusCode(400).contentType("application/problem+json");
        ask("{\"aggregateType\":\"audit_probe\",\"aggregateId\":\"nobody-" + UUID.randomUUID() + "\"}").then().statusCode(422)
                .contentType("application/problem+json");
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"aggregateType\":\"license\"}").when().post("/audit/replays")
                .then().statusCode(403).contentType("application/problem+json");
        given().contentType(ContentType.JSON).body("{\"aggregateType\":\"license\"}").when().post("/audit/replays").then().statusCode(401);
        given().auth().oauth2(Tokens.admin()).get("/audit/replays/{id}", UUID.randomUUID()).then().statusCode(404)
                .contentType("application/problem+json");
        given().auth().oauth2(Tokens.admin()).get("/audit/replays/not-an-id").then().statusCode(404);
        assertThat(db.count("select count(*) from replay")).isEqualTo(before);
    }
}
