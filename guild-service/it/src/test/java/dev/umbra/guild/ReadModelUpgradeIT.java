package dev.umbra.guild;

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
 * A database of the release before the platform's read models, with mappings and plans of its own,
 * upgraded as the service's start would: the platform migration that came later (V0_6) runs out of
 * order, and V5 moves the rows into its tables. Flyway alone, no Quarkus.
 */
class ReadModelUpgradeIT {

    private static final String DATABASE = "guild_upgrade";
    private static final PostgresServer POSTGRES = Devstack.shared().postgres();

    @AfterAll
    static void releaseTheSlot() {
        POSTGRES.dropReplicationState(DATABASE);
    }

    @Test
    void anUpgradedDatabaseKeepsEveryGuildMappingAndPlan() throws SQLException {
        SchemaMigrations.releasedBeforeReadModels(POSTGRES, DATABASE, "4");
        UUID license = UUID.randomUUID();
        UUID subscription = UUID.randomUUID();
        try (Connection connection = POSTGRES.connect(DATABASE); Statement statement = connection.createStatement()) {
            statement.execute("insert into guild_of (aggregate_type, aggregate_id, guild_id) values "
                    + "('license', '" + license + "', '123456789012345678'), "
                    + "('subscription', '" + subscription + "', '123456789012345678')");
            statement.execute("insert into guild_plan (license_id, guild_id, plan, plan_at, status, status_at) values "
                    + "('" + license + "', '123456789012345678', 'PRO', '2026-11-01T10:00:00Z', 'SUSPENDED', '2026-11-02T10:00:00Z')");
        }

        SchemaMigrations.toLatest(POSTGRES, DATABASE);

        Database db = Database.of(DATABASE);
        assertThat(db.count("select count(*) from aggregate_guild where guild_id = '123456789012345678' "
                + "and (aggregate_type, aggregate_id) in (('license', ?), ('subscription', ?))", license.toString(), subscription.toString()))
                .isEqualTo(2);
        assertThat(db.text("select guild_id || ' ' || plan || ' ' || status || ' ' || (plan_at < status_at) from license_plan "
                + "where license_id = ?::uuid", license.toString())).isEqualTo("123456789012345678 PRO SUSPENDED true");
        assertThat(db.count("select count(*) from pg_tables where tablename in ('guild_of', 'guild_plan')")).isZero();
    }
}
