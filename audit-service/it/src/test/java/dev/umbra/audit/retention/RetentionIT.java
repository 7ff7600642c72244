package dev.umbra.audit.retention;

import static dev.umbra.audit.AuditFixtures.record;
import static dev.umbra.audit.AuditFixtures.stored;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.licensing.LicenseExtended;
import dev.umbra.testing.Concurrently;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.LogLines;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Retention drops whole months older than what is kept, and nothing else; it creates the coming months ahead, and moves
 * the rows of the default partitions into their months, a few at a time (rehome-batch-size 3 in tests).
 */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "audit"))
@ExpectedLog(category = "dev.umbra.audit.retention.AuditRetention", message = "poisoned row")
@ExpectedLog(category = "dev.umbra.audit.retention.AuditRetention", message = "canceling statement due to (statement|lock) timeout")
@ExpectedLog(category = LogLines.POSTGRESQL, level = "ERROR", message = "^poisoned row$")
@ExpectedLog(category = LogLines.POSTGRESQL, level = "ERROR", message = "^canceling statement due to lock timeout")
class RetentionIT {

    @InjectDevstack
    Database db;

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Inject
    AuditRetention retention;

    private boolean exists(String table) {
        return db.count("select count(*) from pg_class where relname = ?", table) == 1;
    }

    private String partitionOf(UUID eventId) {
        return db.text("select tableoid::regclass::text from audit_log where event_id = ?", eventId);
    }

    @Test
    void monthsOlderThanTheKeptOnesAreDroppedWholeAndTheComingOnesCreated() throws Throwable {
        // months the job made when they were current: 24 are kept before this one, so 25 back is out and 24 back in
        YearMonth thisMonth = YearMonth.now(ZoneOffset.UTC);
        DateTimeFormatter month = DateTimeFormatter.ofPattern("yyyy_MM");
        YearMonth outMonth = thisMonth.minusMonths(25);
        YearMonth keptMonth = thisMonth.minusMonths(24);
        Instant out = outMonth.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
        Instant keptStart = keptMonth.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
        db.text("select audit_create_partitions(cast(? as timestamptz), 1)", out);
        db.text("select audit_create_partitions(cast(? as timestamptz), 1)", keptStart);
        String guild = Snowflakes.random();
        UUID old = UUID.randomUUID();
        UUID oldWaiting = UUID.randomUUID();
        UUID kept = UUID.randomUUID();
        UUID current = UUID.randomUUID();
        KafkaProbe.produceAll(List.of(
                record(new BotInstalled(guild, Snowflakes.random()), old, out.plus(Duration.ofDays(14))),
                record(new LicenseExtended(UUID.randomUUID(), out.plus(Duration.ofDays(30))), oldWaiting, out.plus(Duration.ofDays(19))),
                record(new BotInstalled(guild, Snowflakes.random()), kept, keptStart.plus(Duration.ofDays(14))),
                record(new BotInstalled(guild, Snowflakes.random()), current, Instant.now())));
        await().atMost(WAIT).until(() -> stored(db, old) + stored(db, oldWaiting) + stored(db, kept) + stored(db, current) == 4);
        assertThat(partitionOf(old)).isEqualTo("audit_log_" + outMonth.format(month));
        assertThat(partitionOf(kept)).isEqualTo("audit_log_" + keptMonth.format(month));
        assertThat(db.count("select count(*) from audit_unattributed where event_id = ?", oldWaiting)).isEqualTo(1);

        VertxContextSupport.subscribeAndAwait(() -> retention.runSoon());
        assertThat(VertxContextSupport.subscribeAndAwait(() -> retention.runOnce())).isEqualTo(1);

        assertThat(exists("audit_log_" + outMonth.format(month))).isFalse();
        assertThat(exists("audit_guild_" + outMonth.format(month))).isFalse();
        assertThat(stored(db, old) + stored(db, oldWaiting)).isZero();
        assertThat(db.count("select count(*) from audit_unattributed where event_id = ?", oldWaiting)).isZero();
        assertThat(stored(db, kept)).isEqualTo(1);
        assertThat(stored(db, current)).isEqualTo(1);
        assertThat(exists("audit_log_" + keptMonth.format(month))).isTrue();
        for (int ahead = 0; ahead <= 2; ahead++) {
            assertThat(exists("audit_log_" + thisMonth.plusMonths(ahead).format(month))).isTrue();
            assertThat(exists("audit_guild_" + thisMonth.plusMonths(ahead).format(month))).isTrue();
        }
    }

    @Test
    void rowsThatFellIntoADefaultPartitionMoveIntoTheirMonthOrAreDroppedWhenOlderThanWhatIsKept() throws Throwable {
        // no month partition takes these: one months ahead of those made in advance (a producer's clock), one older than kept
        YearMonth thisMonth = YearMonth.now(ZoneOffset.UTC);
        DateTimeFormatter month = DateTimeFormatter.ofPattern("yyyy_MM");
        YearMonth aheadMonth = thisMonth.plusMonths(9);
        Instant ahead = aheadMonth.atDay(10).atStartOfDay(ZoneOffset.UTC).toInstant();
        Instant tooOld = thisMonth.minusMonths(30).atDay(10).atStartOfDay(ZoneOffset.UTC).toInstant();
        String guild = Snowflakes.random();
        UUID early = UUID.randomUUID();
        UUID old = UUID.randomUUID();
        KafkaProbe.produceAll(List.of(
                record(new BotInstalled(guild, Snowflakes.random()), early, ahead),
                record(new BotInstalled(guild, Snowflakes.random()), old, tooOld)));
        await().atMost(WAIT).until(() -> stored(db, early) + stored(db, old) == 2);
        assertThat(partitionOf(early)).isEqualTo("audit_log_default");
        assertThat(partitionOf(old)).isEqualTo("audit_log_default");
        assertThat(guildPartitionOf(early)).isEqualTo("audit_guild_default");

        VertxContextSupport.subscribeAndAwait(() -> retention.runSoon());
        assertThat(VertxContextSupport.subscribeAndAwait(() -> retention.runOnce())).isEqualTo(1);

        assertThat(partitionOf(early)).isEqualTo("audit_log_" + aheadMonth.format(month));
        assertThat(guildPartitionOf(early)).isEqualTo("audit_guild_" + aheadMonth.format(month));
        assertThat(db.text("select guild_id from audit_guild where event_id = ?", early)).isEqualTo(guild);
        assertThat(stored(db, old)).isZero();
        assertThat(db.count("select count(*) from audit_guild where event_id = ?", old)).isZero();
        assertThat(db.count("select count(*) from audit_log_default")).isZero();
        assertThat(db.count("select count(*) from pg_trigger where tgrelid = 'audit_log_default'::regclass and tgname = 'no_truncate'"))
                .as("the default refuses TRUNCATE").isOne();
        assertThat(db.count("select count(*) from pg_trigger where tgrelid = ?::regclass and tgname = 'no_truncate'",
                "audit_log_" + aheadMonth.format(month))).as("so does the month its rows moved into").isOne();

        // the rest of that month goes to its own partition now
        UUID later = UUID.randomUUID();
        KafkaProbe.produceAll(List.of(record(new BotInstalled(guild, Snowflakes.random()), later, ahead.plus(Duration.ofDays(3)))));
        await().atMost(WAIT).until(() -> stored(db, later) == 1);
        assertThat(partitionOf(later)).isEqualTo("audit_log_" + aheadMonth.format(month));
    }

    private String guildPartitionOf(UUID eventId) {
        return db.text("select tableoid::regclass::text from audit_guild where event_id = ?", eventId);
    }

    @Test
    void aMonthWhoseRowsCannotLeaveTheDefaultHoldsBackNeitherTheComingMonthsNorTheDropsNorTheOtherMonths() throws Throwable {
        YearMonth thisMonth = YearMonth.now(ZoneOffset.UTC);
        // a coming month whose partitions are missing, and a month past keeping whose partitions are still there
        YearMonth coming = thisMonth.plusMonths(2);
        for (String table : List.of("audit_log_", "audit_guild_")) {
            assertThat(db.count("select count(*) from " + table + coming.format(MONTH))).as("nothing of this test's months is stored").isZero();
            db.execute("drop table " + table + coming.format(MONTH));
        }
        YearMonth expired = thisMonth.minusMonths(26);
        db.text("select audit_create_partitions(cast(? as timestamptz), 1)", start(expired));
        // two months no partition takes: the rows of one cannot move (a trigger refuses one of them), the other's can
        YearMonth stuck = thisMonth.plusMonths(10);
        YearMonth free = thisMonth.plusMonths(11);
        String stuckAggregate = storeDirectly(stuck, 4);
        String freeAggregate = storeDirectly(free, 5);
        assertThat(rowsIn("audit_log_default", stuckAggregate) + rowsIn("audit_log_default", freeAggregate)).isEqualTo(9);
        String poisoned = db.text("select event_id from audit_log where aggregate_id = ? order by occurred_at offset 2 limit 1", stuckAggregate);
        db.execute("create function retention_it_poison() returns trigger language plpgsql as $$ begin "
                + "if coalesce(new.event_id, old.event_id) = '" + poisoned + "' then raise exception 'poisoned row'; end if; "
                + "return coalesce(new, old); end $$");
        db.execute("create trigger retention_it_poison before insert or delete on audit_log for each row execute function retention_it_poison()");
        try {
            VertxContextSupport.subscribeAndAwait(() -> retention.runSoon());
            assertThat(VertxContextSupport.subscribeAndAwait(() -> retention.runOnce())).isEqualTo(1);

            assertThat(exists("audit_log_" + coming.format(MONTH))).as("the coming month is created").isTrue();
            assertThat(exists("audit_guild_" + coming.format(MONTH))).isTrue();
            assertThat(exists("audit_log_" + expired.format(MONTH))).as("the month past keeping is dropped").isFalse();
            assertThat(exists("audit_guild_" + expired.format(MONTH))).isFalse();
            assertThat(rowsIn("audit_log_" + free.format(MONTH), freeAggregate)).as("the other month's rows moved").isEqualTo(5);
            assertThat(guildRowsIn("audit_guild_" + free.format(MONTH), freeAggregate)).isEqualTo(5);
            assertThat(rowsIn("audit_log_default", stuckAggregate)).as("the stuck month's rows are where they were").isEqualTo(4);
            assertThat(storedOnce(stuckAggregate)).isEqualTo(4);
            assertThat(runState()).as("the run reports what failed").contains("audit_log_" + stuck.format(MONTH)).contains("poisoned row");
        } finally {
            db.execute("drop trigger retention_it_poison on audit_log");
            db.execute("drop function retention_it_poison()");
        }

        VertxContextSupport.subscribeAndAwait(() -> retention.runSoon());
        assertThat(VertxContextSupport.subscribeAndAwait(() -> retention.runOnce())).isEqualTo(1);

        assertThat(rowsIn("audit_log_" + stuck.format(MONTH), stuckAggregate)).isEqualTo(4);
        assertThat(guildRowsIn("audit_guild_" + stuck.format(MONTH), stuckAggregate)).isEqualTo(4);
        assertThat(storedOnce(stuckAggregate)).isEqualTo(4);
        assertThat(storedOnce(freeAggregate)).isEqualTo(5);
        assertThat(runState()).isEqualTo("pending next run");
    }

    @Test
    void aDefaultPartitionTooBigToEmptyInOneStatementIsWorkedOffInBatches() throws Throwable {
        // each of these rows takes 5 ms to store or take out: all at once, they would outlast the statement timeout (5 s)
        YearMonth crowded = YearMonth.now(ZoneOffset.UTC).plusMonths(12);
        String aggregate = storeDirectly(crowded, 1200);
        assertThat(rowsIn("audit_log_default", aggregate)).isEqualTo(1200);
        db.execute("create function retention_it_slow() returns trigger language plpgsql as $$ begin "
                + "if coalesce(new.aggregate_id, old.aggregate_id) = '" + aggregate + "' then perform pg_sleep(0.005); end if; "
                + "return coalesce(new, old); end $$");
        db.execute("create trigger retention_it_slow before insert or delete on audit_log for each row execute function retention_it_slow()");
        try {
            VertxContextSupport.subscribeAndAwait(() -> retention.runSoon());
            assertThat(VertxContextSupport.subscribeAndAwait(() -> retention.runOnce())).isEqualTo(1);
        } finally {
            db.execute("drop trigger retention_it_slow on audit_log");
            db.execute("drop function retention_it_slow()");
        }

        assertThat(runState()).as("the run went through").isEqualTo("pending next run");
        String monthTable = "audit_log_" + crowded.format(MONTH);
        assertThat(rowsIn(monthTable, aggregate)).isEqualTo(1200);
        assertThat(guildRowsIn("audit_guild_" + crowded.format(MONTH), aggregate)).isEqualTo(1200);
        assertThat(storedOnce(aggregate)).isEqualTo(1200);
        assertThat(rowsIn("audit_log_default", aggregate)).isZero();
        assertThat(db.count("select count(*) from pg_indexes where tablename = ?", monthTable))
                .as("the month's table came with the log's indexes, which the attach took as they were")
                .isEqualTo(db.count("select count(*) from pg_indexes where tablename = ?", "audit_log_" + YearMonth.now(ZoneOffset.UTC).format(MONTH)));
    }

    @Test
    void runsThatOverlapWhileEventsOfTheirMonthArriveLoseAndDoubleNothing() throws Throwable {
        // beyond the month IngestIT makes 400 days ahead
        YearMonth arriving = YearMonth.now(ZoneOffset.UTC).plusMonths(16);
        String aggregate = storeDirectly(arriving, 20);
        assertThat(rowsIn("audit_log_default", aggregate)).isEqualTo(20);
        List<Object> done = Concurrently.run(3, caller -> {
            if (caller < 2) {
                // two replicas' runs at once: one whose lease ran out and the one that took over
                try {
                    return VertxContextSupport.subscribeAndAwait(() -> retention.run());
                } catch (Throwable e) {
                    throw new IllegalStateException(e);
                }
            }
            // spread over the runs, so that events arrive while rows of their month are copied, moved and attached
            for (int stored = 0; stored < 20; stored++) {
                storeDirectly(arriving, 1, aggregate);
                Thread.sleep(15);
            }
            return "stored";
        });
        assertThat(done.subList(0, 2)).allSatisfy(summary -> assertThat(summary.toString()).as("a run that met no failure").contains("failures=[]"));
        VertxContextSupport.subscribeAndAwait(() -> retention.run());

        assertThat(rowsIn("audit_log_" + arriving.format(MONTH), aggregate)).isEqualTo(40);
        assertThat(guildRowsIn("audit_guild_" + arriving.format(MONTH), aggregate)).isEqualTo(40);
        assertThat(storedOnce(aggregate)).isEqualTo(40);
    }

    @Test
    void aRunThatWaitedTooLongForALockIsTriedAgainAfterABackoffNotAtTheNextInterval() throws Throwable {
        YearMonth waiting = YearMonth.now(ZoneOffset.UTC).plusMonths(17);
        String aggregate = storeDirectly(waiting, 2);
        assertThat(rowsIn("audit_log_default", aggregate)).isEqualTo(2);
        // a long reader of the default partition, which no statement of the run may take rows out of meanwhile
        try (AutoCloseable reader = db.holding("lock table audit_log_default in share mode")) {
            VertxContextSupport.subscribeAndAwait(() -> retention.runSoon());
            assertThat(VertxContextSupport.subscribeAndAwait(() -> retention.runOnce())).isEqualTo(1);
        }

        assertThat(runState()).startsWith("pending run failed").contains("audit_log_" + waiting.format(MONTH));
        assertThat(db.count("select count(*) from work_item where queue = 'audit-retention' and item_key = 'run' "
                + "and due_at < now() + interval '1 hour'")).as("due again after the queue's backoff, not in 6 hours").isOne();
        assertThat(rowsIn("audit_log_default", aggregate)).isEqualTo(2);

        VertxContextSupport.subscribeAndAwait(() -> retention.runSoon());
        assertThat(VertxContextSupport.subscribeAndAwait(() -> retention.runOnce())).isEqualTo(1);
        assertThat(rowsIn("audit_log_" + waiting.format(MONTH), aggregate)).isEqualTo(2);
        assertThat(storedOnce(aggregate)).isEqualTo(2);
        assertThat(runState()).isEqualTo("pending next run");
    }

    private static final DateTimeFormatter MONTH = DateTimeFormatter.ofPattern("yyyy_MM");

    private static Instant start(YearMonth month) {
        return month.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
    }

    /** {@code count} events of a new aggregate in {@code month}, attributed to a guild, stored as ingest stores them; returns the aggregate. */
    private String storeDirectly(YearMonth month, int count) {
        String aggregate = Snowflakes.random();
        storeDirectly(month, count, aggregate);
        return aggregate;
    }

    private void storeDirectly(YearMonth month, int count, String aggregate) {
        db.execute("with stored as (insert into audit_log (event_id, occurred_at, recorded_at, processed_at, aggregate_type, aggregate_id, "
                + "event_type, schema_version, sequence, payload, masked_fields, source_topic, source_partition, source_offset) "
                + "select gen_random_uuid(), cast(? as timestamptz) + random() * interval '27 days', now(), now(), 'guild', ?, 'BotInstalled', 1, n, "
                + "'{}', '[]', 'umbra.guild', 0, n from generate_series(1, ?) n returning event_id, occurred_at) "
                + "insert into audit_guild (event_id, occurred_at, guild_id, attributed_at) select event_id, occurred_at, ?, now() from stored",
                start(month), aggregate, count, aggregate);
    }

    /** The run item's status and what its last run left as its error (the reason of its outcome). */
    private String runState() {
        return db.text("select status || ' ' || coalesce(last_error, '') from work_item where queue = 'audit-retention' and item_key = 'run'");
    }

    private long rowsIn(String table, String aggregate) {
        return db.count("select count(*) from " + table + " where aggregate_id = ?", aggregate);
    }

    private long guildRowsIn(String table, String aggregate) {
        return db.count("select count(*) from " + table + " where guild_id = ?", aggregate);
    }

    /** The aggregate's events in the log, each counted once however many rows it has: equal to the rows when none is doubled. */
    private long storedOnce(String aggregate) {
        long rows = db.count("select count(*) from audit_log where aggregate_id = ?", aggregate);
        assertThat(db.count("select count(distinct event_id) from audit_log where aggregate_id = ?", aggregate)).isEqualTo(rows);
        assertThat(db.count("select count(*) from audit_guild where guild_id = ?", aggregate)).isEqualTo(rows);
        return rows;
    }
}
