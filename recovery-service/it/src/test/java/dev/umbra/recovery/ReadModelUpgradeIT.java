package dev.umbra.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.PostgresServer;
import dev.umbra.testing.Database;
import dev.umbra.testing.SchemaMigrations;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A recovery database of the release before the platform's read models (V3), knowing a guild's plan and
 * a license whose guild it has not learned yet, upgraded as the service's start would: the platform's
 * V0_6 runs out of order, and V4 moves the rows into its {@code license_plan}. Flyway alone, no Quarkus.
 */
class ReadModelUpgradeIT {

    private static final String DATABASE = "recovery_upgrade";
    private static final PostgresServer POSTGRES = Devstack.shared().postgres();

    @AfterAll
    static void releaseTheSlot() {
        POSTGRES.dropReplicationState(DATABASE);
    }

    @Test
    void anUpgradedDatabaseKeepsEveryGuildsPlanAndWhatItKnewOfIt() throws SQLException {
        SchemaMigrations.releasedBeforeReadModels(POSTGRES, DATABASE, "3");
        UUID suspended = UUID.randomUUID();
        UUID guildNotYetKnown = UUID.randomUUID();
        try (Connection connection = POSTGRES.connect(DATABASE); Statement statement = connection.createStatement()) {
            statement.execute("insert into guild_plan (license_id, guild_id, plan, plan_at, status, status_at) values "
                    + "('" + suspended + "', '123456789012345678', 'PREMIUM', '2026-11-01T10:00:00Z', 'SUSPENDED', '2026-11-02T10:00:00Z'), "
                    + "('" + guildNotYetKnown + "', null, 'PRO', '2026-11-03T10:00:00Z', null, null)");
        }

        SchemaMigrations.toLatest(POSTGRES, DATABASE);

        Database db = Database.of(DATABASE);
        assertThat(db.text("select guild_id || ' ' || plan || ' ' || status || ' ' || (plan_at < status_at) from license_plan "
                + "where license_id = ?::uuid", suspended.toString())).isEqualTo("123456789012345678 PREMIUM SUSPENDED true");
        assertThat(db.text("select coalesce(guild_id, 'unknown') || ' ' || plan || ' ' || coalesce(status, 'none') from license_plan "
                + "where license_id = ?::uuid", guildNotYetKnown.toString())).isEqualTo("unknown PRO none");
        assertThat(db.count("select count(*) from pg_tables where tablename = 'guild_plan'")).isZero();
    }
}
