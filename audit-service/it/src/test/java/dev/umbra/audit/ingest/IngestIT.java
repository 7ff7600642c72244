package dev.umbra.audit.ingest;

import static dev.umbra.audit.AuditFixtures.guildOf;
import static dev.umbra.audit.AuditFixtures.record;
import static dev.umbra.audit.AuditFixtures.stored;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.billing.InvoiceGenerated;
import dev.umbra.events.billing.PaymentSucceeded;
import dev.umbra.events.billing.RefundSucceeded;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.identity.UserSessionCreated;
import dev.umbra.events.licensing.LicenseExtended;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.events.recovery.SnapshotCreated;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.LogLines;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResourceManager;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** Every event of every topic into the audit log: once each, attributed to its guild in any order, masked. */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "audit"))
@ExpectedLog(category = LogLines.POSTGRESQL, level = "ERROR", message = "^the audit log is append-only")
@ExpectedLog(category = LogLines.POSTGRESQL, level = "ERROR", message = "^(permission denied for|must be owner of|the audit log keeps every|month partitions are made from)")
@ExpectedLog(category = LogLines.POSTGRESQL, level = "ERROR", message = "^permission denied for function audit_purge_default")
class IngestIT {

    @InjectDevstack
    Database db;

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static double unattributedGauge() {
        String metrics = RestAssured.given().get(TestHTTPResourceManager.getManagementUri() + "/metrics").then().statusCode(200)
                .extract().asString();
        return metrics.lines().filter(line -> line.startsWith("umbra_audit_unattributed_events"))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    @Test
    void theAuditDatabaseHoldsNoReplicationSlotForTheServerToKeepWalFor() {
        // audit publishes nothing: a slot of its database would pin the server's WAL for ever, as nothing reads it
        assertThat(db.count("select count(*) from pg_replication_slots where database = current_database()")).isZero();
        assertThat(db.count("select count(*) from pg_publication")).isZero();
    }

    @Test
    void aBurstOfEventsOfManyTopicsDeliveredTwiceIsStoredOnceEachAndAttributed() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        Map<UUID, String> guildOfEvent = new LinkedHashMap<>();
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            String guild = Snowflakes.random();
            UUID license = UUID.randomUUID();
            UUID subscription = UUID.randomUUID();
            List<DomainEvent> events = List.of(new BotInstalled(guild, Snowflakes.random()),
                    new SnapshotCreated(UUID.randomUUID(), guild, "manual"),
                    new LicenseGranted(license, guild, "PRO"),
                    new LicenseExtended(license, now.plus(30, ChronoUnit.DAYS)),
                    new SubscriptionStarted(subscription, guild, "PRO", now.plus(30, ChronoUnit.DAYS)),
                    new PaymentSucceeded(subscription, UUID.randomUUID(), now.plus(60, ChronoUnit.DAYS)));
            for (DomainEvent event : events) {
                UUID id = UUID.randomUUID();
                guildOfEvent.put(id, guild);
                records.add(record(event, id, now));
            }
        }
        // every record twice, the second time in another order: across topics, a license's events may come before or after its grant
        List<ProducerRecord<String, byte[]>> again = new ArrayList<>(records);
        Collections.shuffle(again, new Random(12));
        List<ProducerRecord<String, byte[]>> all = new ArrayList<>(records);
        all.addAll(again);
        KafkaProbe.produceAll(all);

        String ids = String.join(",", guildOfEvent.keySet().stream().map(UUID::toString).toList());
        await().atMost(WAIT).until(() -> db.count("select count(*) from audit_guild where event_id = any(string_to_array(?, ',')::uuid[])", ids)
                == guildOfEvent.size());
        assertThat(db.count("select count(*) from audit_log where event_id = any(string_to_array(?, ',')::uuid[])", ids))
                .isEqualTo(guildOfEvent.size());
        assertThat(db.count("select count(*) from processed_event where consumer = 'audit' and event_id = any(string_to_array(?, ',')::uuid[])", ids))
                .isEqualTo(guildOfEvent.size());
        guildOfEvent.forEach((id, guild) -> assertThat(guildOf(db, id)).as("guild of %s", id).isEqualTo(guild));
        assertThat(db.count("select count(*) from audit_unattributed where event_id = any(string_to_array(?, ',')::uuid[])", ids)).isZero();
    }

    @Test
    void eventsThatComeBeforeTheEventNamingTheirGuildAreAttributedWhenItArrives() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        String guild = Snowflakes.random();
        UUID license = UUID.randomUUID();
        UUID subscription = UUID.randomUUID();
        UUID invoice = UUID.randomUUID();
        UUID extended = UUID.randomUUID();
        UUID paid = UUID.randomUUID();
        UUID invoiced = UUID.randomUUID();
        UUID refunded = UUID.randomUUID();
        KafkaProbe.produceAll(List.of(
                record(new LicenseExtended(license, now.plus(30, ChronoUnit.DAYS)), extended, now),
                record(new PaymentSucceeded(subscription, UUID.randomUUID(), now.plus(30, ChronoUnit.DAYS)), paid, now),
                record(new RefundSucceeded(UUID.randomUUID(), invoice, new BigDecimal("5.00"), "EUR"), refunded, now),
                record(new InvoiceGenerated(invoice, subscription, now, now.plus(30, ChronoUnit.DAYS), new BigDecimal("9.90"), "EUR"),
                        invoiced, now)));
        await().atMost(WAIT).until(() -> stored(db, extended) + stored(db, paid) + stored(db, invoiced) + stored(db, refunded) == 4);
        assertThat(List.of(extended, paid, invoiced, refunded)).allSatisfy(id -> assertThat(guildOf(db, id)).isNull());
        await().atMost(WAIT).until(() -> unattributedGauge() >= 4);

        UUID granted = UUID.randomUUID();
        UUID started = UUID.randomUUID();
        KafkaProbe.produceAll(List.of(record(new LicenseGranted(license, guild, "PRO"), granted, now),
                record(new SubscriptionStarted(subscription, guild, "PRO", now.plus(30, ChronoUnit.DAYS)), started, now)));

        // the refund names only its invoice, whose guild is learned from the invoice's event, attributed through its subscription
        await().atMost(WAIT).untilAsserted(() -> assertThat(List.of(granted, started, extended, paid, invoiced, refunded))
                .allSatisfy(id -> assertThat(guildOf(db, id)).isEqualTo(guild)));
        assertThat(db.count("select count(*) from audit_unattributed where event_id in (?, ?, ?, ?)", extended, paid, invoiced, refunded)).isZero();
    }

    @Test
    void sessionReferencesAndUnexpectedSecretLookingFieldsAreMaskedBeforeStorage() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        UUID session = UUID.randomUUID();
        UUID surprise = UUID.randomUUID();
        String fingerprint = "f1ngerpr1nt-" + UUID.randomUUID();
        String leaked = "leaked-" + UUID.randomUUID();
        KafkaProbe.produceAll(List.of(
                record(new UserSessionCreated(UUID.randomUUID(), fingerprint), session, now),
                // an aggregate and an event type nobody declared: read all the same, by the pattern
                record("audit_probe", "probe-1", "ProbeReported",
                        "{\"note\":\"kept\",\"gateway\":{\"clientSecret\":\"" + leaked + "\",\"apiKey\":\"" + leaked + "\"},"
                                + "\"items\":[{\"access_token\":\"" + leaked + "\",\"label\":\"kept\"}]}", surprise, now)));
        await().atMost(WAIT).until(() -> stored(db, session) + stored(db, surprise) == 2);

        String sessionRow = db.text("select payload::text from audit_log where event_id = ?", session);
        assertThat(sessionRow).doesNotContain(fingerprint).contains("\"session_ref\": \"***\"");
        assertThat(db.text("select masked_fields::text from audit_log where event_id = ?", session)).isEqualTo("[\"/session_ref\"]");
        String surpriseRow = db.text("select payload::text from audit_log where event_id = ?", surprise);
        assertThat(surpriseRow).doesNotContain(leaked).contains("kept");
        assertThat(db.text("select masked_fields::text from audit_log where event_id = ?", surprise))
                .isEqualTo("[\"/gateway/clientSecret\", \"/gateway/apiKey\", \"/items/0/access_token\"]");
        assertThat(db.text("select source_topic from audit_log where event_id = ?", surprise)).isEqualTo("umbra.audit_probe");
    }

    @Test
    void deadLetterTopicsAreNotRead() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        UUID deadLetter = UUID.randomUUID();
        UUID after = UUID.randomUUID();
        String guild = Snowflakes.random();
        ProducerRecord<String, byte[]> dead = record(new BotInstalled(guild, Snowflakes.random()), deadLetter, now);
        KafkaProbe.produceAll(List.of(new ProducerRecord<>(dead.topic() + ".dlq", null, dead.key(), dead.value(), dead.headers())));
        // the dead-letter topic, made by that produce, is in the consumer's metadata after its next refresh (500 ms in the test
        // profile) and a rebalance: had the pattern taken it, the record would be read from the earliest offset by then
        KafkaProbe.produceAll(List.of(record(new BotInstalled(guild, Snowflakes.random()), after, now)));
        await().pollDelay(Duration.ofSeconds(5)).atMost(WAIT).until(() -> stored(db, after) == 1);
        assertThat(stored(db, deadLetter)).isZero();
    }

    @Test
    void theServiceRoleCannotChangeOrDeleteWhatIsStored() {
        UUID id = UUID.randomUUID();
        KafkaProbe.produceAll(List.of(record(new BotInstalled(Snowflakes.random(), Snowflakes.random()), id, Instant.now())));
        await().atMost(WAIT).until(() -> stored(db, id) == 1);
        Database service = db.asService();
        assertThatThrownBy(() -> service.text("with changed as (update audit_log set event_type = 'Forged' where event_id = ? returning 1) "
                + "select count(*) from changed", id)).rootCause().hasMessageContaining("append-only");
        assertThatThrownBy(() -> service.text("with gone as (delete from audit_log where event_id = ? returning 1) select count(*) from gone", id))
                .rootCause().hasMessageContaining("append-only");
        assertThatThrownBy(() -> service.text("with gone as (delete from audit_guild where event_id = ? returning 1) select count(*) from gone", id))
                .rootCause().hasMessageContaining("append-only");
        String partition = db.text("select tableoid::regclass::text from audit_log where event_id = ?", id);
        for (String table : List.of("audit_log", "audit_guild", partition, "audit_log_default")) {
            assertThatThrownBy(() -> service.execute("truncate " + table)).as(table).rootCause().hasMessageContaining("permission denied");
            assertThatThrownBy(() -> db.execute("truncate " + table)).as(table).rootCause().hasMessageContaining("append-only");
        }
        // what would take the triggers away is the owner's alone
        assertThatThrownBy(() -> service.execute("drop trigger no_truncate on " + partition)).rootCause().hasMessageContaining("must be owner");
        assertThatThrownBy(() -> service.execute("alter table audit_log disable trigger all")).rootCause().hasMessageContaining("must be owner");
        assertThatThrownBy(() -> service.execute("drop table " + partition)).rootCause().hasMessageContaining("must be owner");
        assertThatThrownBy(() -> service.execute("alter table audit_log detach partition " + partition)).rootCause()
                .hasMessageContaining("must be owner");
        assertThatThrownBy(() -> service.execute("create or replace function audit_reject_change() returns trigger language plpgsql as "
                + "$$ begin return old; end $$")).rootCause().hasMessageContaining("permission denied for schema");
        // and the retention's functions, which run as the owner, remove nothing of the last whole month nor after it
        assertThatThrownBy(() -> service.text("select audit_drop_month_table(?)", partition)).rootCause()
                .hasMessageContaining("the audit log keeps every month");
        assertThatThrownBy(() -> service.text("select audit_purge_default('audit_log', now(), 10)")).rootCause()
                .hasMessageContaining("the audit log keeps every row");
        // a month made after the migration refuses TRUNCATE too
        service.text("select audit_create_partitions(cast(? as timestamptz), 1)", Instant.now().plus(Duration.ofDays(400)));
        String later = "audit_log_" + DateTimeFormatter.ofPattern("yyyy_MM").withZone(ZoneOffset.UTC).format(Instant.now().plus(Duration.ofDays(400)));
        assertThatThrownBy(() -> db.execute("truncate " + later)).as(later).rootCause().hasMessageContaining("append-only");
        assertThatThrownBy(() -> service.text("select audit_drop_month_table(?)", later)).rootCause()
                .hasMessageContaining("the audit log keeps every month");
        // nor months made far ahead, where nothing is due
        assertThatThrownBy(() -> service.text("select audit_create_partitions(cast(? as timestamptz), 1)", Instant.now().plus(Duration.ofDays(5 * 365))))
                .rootCause().hasMessageContaining("month partitions are made from the previous month to three years ahead");
        // a table staged for a default partition's rows of a month refuses changes before it is attached, as the log's partitions do
        Instant stagedMonth = Instant.now().plus(Duration.ofDays(800));
        String staged = "audit_log_" + DateTimeFormatter.ofPattern("yyyy_MM").withZone(ZoneOffset.UTC).format(stagedMonth);
        UUID inDefault = UUID.randomUUID();
        KafkaProbe.produceAll(List.of(record(new BotInstalled(Snowflakes.random(), Snowflakes.random()), inDefault, stagedMonth)));
        await().atMost(WAIT).until(() -> stored(db, inDefault) == 1);
        try {
            service.text("select audit_stage_month('audit_log', date_trunc('month', cast(? as timestamptz) at time zone 'UTC') at time zone 'UTC', 10)",
                    stagedMonth);
            assertThat(db.count("select count(*) from " + staged + " where event_id = ?", inDefault)).as("staged").isOne();
            // only the retention's functions write it: a row the service's role put there would stand in for the default's
            List<String> changes = List.of("insert into " + staged + " select * from " + staged, "delete from " + staged,
                    "update " + staged + " set event_type = 'Forged'", "select count(*) from " + staged);
            for (String change : changes) {
                assertThatThrownBy(() -> service.execute(change)).as(change).rootCause().hasMessageContaining("permission denied");
            }
            // the platform's grants run again (the service's role changed) and give every table to the role: they end by
            // taking the staged ones back
            db.execute("grant select, insert, update, delete on all tables in schema public to \"" + service.text("select current_user") + "\"");
            db.execute("select restrict_service_role()");
            for (String change : changes) {
                assertThatThrownBy(() -> service.execute(change)).as(change).rootCause().hasMessageContaining("permission denied");
            }
            assertThatThrownBy(() -> db.execute("delete from " + staged)).as(staged).rootCause().hasMessageContaining("append-only");
            assertThatThrownBy(() -> db.execute("update " + staged + " set event_type = 'Forged'")).as(staged).rootCause()
                    .hasMessageContaining("append-only");
            assertThatThrownBy(() -> db.execute("truncate " + staged)).as(staged).rootCause().hasMessageContaining("append-only");
        } finally {
            db.execute("drop table if exists " + staged);
        }
        assertThat(db.text("select tableoid::regclass::text from audit_log where event_id = ?", inDefault)).isEqualTo("audit_log_default");
        assertThat(stored(db, id)).isEqualTo(1);
    }

    @Test
    void aRoleGrantedDeleteCannotEmptyADefaultPartitionBySettingTheRetentionsFlag() {
        UUID id = UUID.randomUUID();
        // from a month that has no partition (a clock far off): it sits in the default
        Instant farOff = Instant.now().plus(Duration.ofDays(3 * 365));
        KafkaProbe.produceAll(List.of(record(new BotInstalled(Snowflakes.random(), Snowflakes.random()), id, farOff)));
        await().atMost(WAIT).until(() -> stored(db, id) == 1);
        assertThat(db.text("select tableoid::regclass::text from audit_log where event_id = ?", id)).isEqualTo("audit_log_default");
        String role = "careless_" + id.toString().substring(0, 8);
        db.execute("create role " + role + " nologin");
        db.execute("grant select, delete on audit_log_default to " + role);
        try {
            assertThatThrownBy(() -> db.execute("do $$ begin set local role " + role + "; perform set_config('audit.rehoming', 'on', true); "
                    + "delete from audit_log_default where event_id = '" + id + "'; end $$")).rootCause().hasMessageContaining("append-only");
            assertThatThrownBy(() -> db.execute("do $$ begin set local role " + role + "; "
                    + "perform audit_purge_default('audit_log', now(), 10); end $$")).rootCause().hasMessageContaining("permission denied");
        } finally {
            db.execute("revoke all on audit_log_default from " + role);
            db.execute("drop role " + role);
        }
        assertThat(stored(db, id)).isEqualTo(1);
    }
}
