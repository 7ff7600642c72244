package dev.umbra.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.PostgresServer;
import dev.umbra.testing.Database;
import dev.umbra.testing.SchemaMigrations;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.LogLines;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * An audit database of the release that ended at V4 — before attributions knew when they became known
 * (V5), before every partition refused TRUNCATE (V6), before rows that no month took could be moved
 * (V7, in batches since V10), before replays went in sequence order (V8) and before the outbox slot
 * nothing reads was dropped (V9) — holding stored events, an attribution, an event in the default partition and a replay
 * half done, upgraded as the next release's start would. Flyway alone, no Quarkus.
 */
@ExpectedLog(category = LogLines.POSTGRESQL, level = "ERROR", message = "^the audit log is append-only")
class SchemaUpgradeIT {

    private static final String DATABASE = "audit_upgrade";
    private static final PostgresServer POSTGRES = Devstack.shared().postgres();
    private static final String GUILD = "123456789012345678";

    @AfterAll
    static void releaseTheSlot() {
        POSTGRES.dropReplicationState(DATABASE);
    }

    @Test
    void anUpgradedDatabaseKeepsWhatItStoredAndGuardsAndMovesItAsANewOneDoes() throws SQLException {
        POSTGRES.createDatabase(DATABASE);
        SchemaMigrations.upTo(POSTGRES, DATABASE, "4");
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        // months ahead of every partition the release made (it made the current one and a few after)
        YearMonth earlyMonth = YearMonth.now(ZoneOffset.UTC).plusMonths(9);
        Instant early = earlyMonth.atDay(10).atStartOfDay(ZoneOffset.UTC).toInstant();
        UUID stored = UUID.randomUUID();
        UUID aheadOfItsMonth = UUID.randomUUID();
        UUID replay = UUID.randomUUID();
        try (Connection connection = POSTGRES.connect(DATABASE); Statement statement = connection.createStatement()) {
            for (Object[] event : new Object[][] {{stored, now, 1}, {aheadOfItsMonth, early, 2}}) {
                statement.execute("insert into audit_log (event_id, occurred_at, recorded_at, processed_at, aggregate_type, aggregate_id, "
                        + "event_type, schema_version, sequence, trace_context, payload, masked_fields, source_topic, source_partition, "
                        + "source_offset) values ('" + event[0] + "', '" + event[1] + "', '" + now + "', '" + now + "', 'guild', '" + GUILD
                        + "', 'BotInstalled', 1, " + event[2] + ", null, '{\"guild_id\": \"" + GUILD + "\"}', '[]', 'umbra.guild', 0, "
                        + event[2] + ")");
            }
            statement.execute("insert into audit_guild (event_id, occurred_at, guild_id, attributed_at) values ('" + stored + "', '" + now
                    + "', '" + GUILD + "', '" + now + "')");
            statement.execute("insert into replay (id, aggregate_type, aggregate_id, scope, status, total, published, cursor_recorded_at, "
                    + "cursor_event_id, requested_at) values ('" + replay + "', 'guild', '" + GUILD + "', 'guild/" + GUILD + "/*/*', "
                    + "'RUNNING', 2, 1, '" + now + "', '" + stored + "', '" + now + "')");
        }
        Database db = Database.of(DATABASE);
        assertThat(db.text("select tableoid::regclass::text from audit_log where event_id = ?::uuid", aheadOfItsMonth.toString()))
                .isEqualTo("audit_log_default");
        assertThat(db.count("select count(*) from pg_replication_slots where database = ?", DATABASE))
                .as("the release's outbox slot, which nothing reads").isOne();

        SchemaMigrations.toLatest(POSTGRES, DATABASE);

        assertThat(db.count("select count(*) from audit_log where event_id in (?::uuid, ?::uuid)", stored.toString(),
                aheadOfItsMonth.toString())).isEqualTo(2);
        // V5: an attribution made before knew no known_at; its attributed_at stands in
        assertThat(db.count("select count(*) from audit_guild where event_id = ?::uuid and known_at is null and guild_id = ?",
                stored.toString(), GUILD)).isOne();
        // V6: every partition the release made refuses TRUNCATE
        assertThat(db.count("select count(*) from pg_inherits i join pg_class c on c.oid = i.inhrelid "
                + "where i.inhparent in ('audit_log'::regclass, 'audit_guild'::regclass) "
                + "and not exists (select 1 from pg_trigger t where t.tgrelid = c.oid and t.tgname = 'no_truncate')")).isZero();
        // V8: the replay resumes from sequence 0 of its cursor's instant, on the index that reads in that order
        assertThat(db.count("select count(*) from replay where id = ?::uuid and cursor_sequence = 0 and cursor_event_id = ?::uuid",
                replay.toString(), stored.toString())).isOne();
        assertThat(db.text("select indexdef from pg_indexes where indexname = 'audit_log_recorded'"))
                .endsWith("(recorded_at, sequence, event_id)");
        // V9: that slot is gone, so the server no longer keeps its WAL
        assertThat(db.count("select count(*) from pg_replication_slots where database = ?", DATABASE)).isZero();
        // V10 (V7 before it): the row the release left in the default partition moves into its month as retention moves it,
        // copied into a table of its month, then taken out of the default as that table becomes the month
        // (by the service's role, which the upgrade gave its rights: it owns nothing and runs the retention's functions)
        String month = earlyMonth.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant().toString();
        Database service = db.asService();
        assertThat(service.count("select audit_stage_month('audit_log', ?::timestamptz, 10)", month)).isOne();
        assertThat(db.text("select tableoid::regclass::text from audit_log where event_id = ?::uuid", aheadOfItsMonth.toString()))
                .isEqualTo("audit_log_default");
        service.execute("do $$ begin perform audit_move_staged('audit_log', '" + month + "', 10, null, null); "
                + "perform audit_attach_staged('audit_log', '" + month + "'); end $$");
        assertThat(db.text("select tableoid::regclass::text from audit_log where event_id = ?::uuid", aheadOfItsMonth.toString()))
                .isEqualTo("audit_log_" + earlyMonth.format(DateTimeFormatter.ofPattern("yyyy_MM")));
        assertThat(db.count("select count(*) from audit_log where event_id = ?::uuid", aheadOfItsMonth.toString())).isOne();
        // and the log is as append-only as a new one
        try (Connection connection = POSTGRES.connect(DATABASE); Statement statement = connection.createStatement()) {
            assertThatThrownBy(() -> statement.execute("delete from audit_log where event_id = '" + stored + "'"))
                    .hasMessageContaining("append-only");
            assertThatThrownBy(() -> statement.execute("truncate audit_log_default")).hasMessageContaining("append-only");
        }
    }
}
