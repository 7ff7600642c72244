package dev.umbra.audit.retention;

import static dev.umbra.audit.AuditFixtures.record;
import static dev.umbra.audit.AuditFixtures.stored;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.licensing.LicenseExtended;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
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

/** Retention drops whole months older than what is kept, and nothing else; it creates the coming months ahead. */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "audit"))
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
                .as("the new default refuses TRUNCATE like the one it replaced").isOne();

        // the rest of that month goes to its own partition now
        UUID later = UUID.randomUUID();
        KafkaProbe.produceAll(List.of(record(new BotInstalled(guild, Snowflakes.random()), later, ahead.plus(Duration.ofDays(3)))));
        await().atMost(WAIT).until(() -> stored(db, later) == 1);
        assertThat(partitionOf(later)).isEqualTo("audit_log_" + aheadMonth.format(month));
    }

    private String guildPartitionOf(UUID eventId) {
        return db.text("select tableoid::regclass::text from audit_guild where event_id = ?", eventId);
    }
}
