package dev.umbra.licensing;

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
 * A licensing database of the release before the platform's read models (V4), knowing which guild two
 * subscriptions pay for, upgraded as the service's start would: the platform's V0_6 runs out of order,
 * and V5 moves the rows into its {@code aggregate_guild}. Flyway alone, no Quarkus.
 */
class ReadModelUpgradeIT {

    private static final String DATABASE = "licensing_upgrade";
    private static final PostgresServer POSTGRES = Devstack.shared().postgres();

    @AfterAll
    static void releaseTheSlot() {
        POSTGRES.dropReplicationState(DATABASE);
    }

    @Test
    void anUpgradedDatabaseStillKnowsTheGuildOfEverySubscription() throws SQLException {
        SchemaMigrations.releasedBeforeReadModels(POSTGRES, DATABASE, "4");
        UUID paid = UUID.randomUUID();
        UUID other = UUID.randomUUID();
        try (Connection connection = POSTGRES.connect(DATABASE); Statement statement = connection.createStatement()) {
            statement.execute("insert into subscription_guild (subscription_id, guild_id, started_at) values "
                    + "('" + paid + "', '123456789012345678', '2026-11-01T10:00:00Z'), "
                    + "('" + other + "', '223456789012345678', '2026-11-02T10:00:00Z')");
        }

        SchemaMigrations.toLatest(POSTGRES, DATABASE);

        Database db = Database.of(DATABASE);
        assertThat(db.count("select count(*) from aggregate_guild where aggregate_type = 'subscription' and (aggregate_id, guild_id, learned_at) in "
                + "((?, '123456789012345678', timestamptz '2026-11-01T10:00:00Z'), (?, '223456789012345678', timestamptz '2026-11-02T10:00:00Z'))",
                paid.toString(), other.toString())).isEqualTo(2);
        assertThat(db.count("select count(*) from pg_tables where tablename = 'subscription_guild'")).isZero();
    }
}
