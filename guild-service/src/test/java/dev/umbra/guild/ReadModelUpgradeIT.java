package dev.umbra.guild;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.PostgresServer;
import dev.umbra.testing.Database;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.Properties;
import java.util.UUID;
import org.flywaydb.core.Flyway;
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
    void anUpgradedDatabaseKeepsEveryGuildMappingAndPlan() throws SQLException, IOException {
        POSTGRES.createDatabase(DATABASE);
        migrate("4");
        UUID license = UUID.randomUUID();
        UUID subscription = UUID.randomUUID();
        try (Connection connection = POSTGRES.connect(DATABASE); Statement statement = connection.createStatement()) {
            // the previous release had no V0_6
            statement.execute("drop table aggregate_guild, license_plan");
            statement.execute("delete from flyway_schema_history where version = '0.6'");
            statement.execute("insert into guild_of (aggregate_type, aggregate_id, guild_id) values "
                    + "('license', '" + license + "', '123456789012345678'), "
                    + "('subscription', '" + subscription + "', '123456789012345678')");
            statement.execute("insert into guild_plan (license_id, guild_id, plan, plan_at, status, status_at) values "
                    + "('" + license + "', '123456789012345678', 'PRO', '2026-11-01T10:00:00Z', 'SUSPENDED', '2026-11-02T10:00:00Z')");
        }

        migrate(null);

        Database db = Database.of(DATABASE);
        assertThat(db.count("select count(*) from aggregate_guild where guild_id = '123456789012345678' "
                + "and (aggregate_type, aggregate_id) in (('license', ?), ('subscription', ?))", license.toString(), subscription.toString()))
                .isEqualTo(2);
        assertThat(db.text("select guild_id || ' ' || plan || ' ' || status || ' ' || (plan_at < status_at) from license_plan "
                + "where license_id = ?::uuid", license.toString())).isEqualTo("123456789012345678 PRO SUSPENDED true");
        assertThat(db.count("select count(*) from pg_tables where tablename in ('guild_of', 'guild_plan')")).isZero();
    }

    /** Migrates with the Flyway settings every service starts with (platform runtime's defaults). */
    private static void migrate(String target) throws IOException {
        Properties platform = new Properties();
        for (URL defaults : Collections.list(ReadModelUpgradeIT.class.getClassLoader().getResources("META-INF/microprofile-config.properties"))) {
            try (InputStream in = defaults.openStream()) {
                Properties candidate = new Properties();
                candidate.load(in);
                if (candidate.containsKey("quarkus.flyway.locations")) {
                    platform = candidate;
                }
            }
        }
        var configuration = Flyway.configure()
                .dataSource(POSTGRES.jdbcUrl(DATABASE), POSTGRES.user(), POSTGRES.password())
                .locations(platform.getProperty("quarkus.flyway.locations").split(","))
                .outOfOrder(Boolean.parseBoolean(platform.getProperty("quarkus.flyway.out-of-order")));
        (target == null ? configuration : configuration.target(target)).load().migrate();
    }
}
