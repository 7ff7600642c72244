package dev.umbra.testing;

import dev.umbra.devstack.PostgresServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.Map;
import java.util.Properties;
import org.flywaydb.core.Flyway;

/**
 * A service database migrated by Flyway alone (no Quarkus), with the settings every service starts with
 * (the platform runtime's defaults: its locations, out-of-order; the rights of the service's role): up to a version, as the release that
 * ended there left it, then on to the last, as the next release's start would. For upgrade tests.
 */
public final class SchemaMigrations {

    private SchemaMigrations() {
    }

    /**
     * Migrates {@code database} up to and including {@code version} (a service's own, e.g. "4"), as a release from before
     * the repeatable migrations (the service role's rights) left it: those run on the way to the latest.
     */
    public static void upTo(PostgresServer postgres, String database, String version) {
        configuration(postgres, database).target(version).repeatableSqlMigrationPrefix("NOT_YET_").load().migrate();
    }

    /**
     * Takes back the platform's V0_6 (the guild read models {@code aggregate_guild} and {@code license_plan}),
     * which {@link #upTo} applied with every platform migration: a database of a release from before them,
     * whose next start runs V0_6 out of order and then the service's migration that moves its rows there.
     */
    public static void withoutPlatformReadModels(PostgresServer postgres, String database) {
        try (Connection connection = postgres.connect(database); Statement statement = connection.createStatement()) {
            statement.execute("drop table aggregate_guild, license_plan");
            statement.execute("delete from flyway_schema_history where version = '0.6'");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A new {@code database} as a release from before the platform's read models left it: the service's
     * migrations up to {@code version}, the platform's without V0_6 ({@link #withoutPlatformReadModels}).
     */
    public static void releasedBeforeReadModels(PostgresServer postgres, String database, String version) {
        postgres.createDatabase(database);
        upTo(postgres, database, version);
        withoutPlatformReadModels(postgres, database);
    }

    /** Migrates {@code database} to the service's last migration. */
    public static void toLatest(PostgresServer postgres, String database) {
        configuration(postgres, database).load().migrate();
    }

    private static org.flywaydb.core.api.configuration.FluentConfiguration configuration(PostgresServer postgres, String database) {
        Properties platform = platformDefaults();
        return Flyway.configure()
                .dataSource(postgres.jdbcUrl(database), postgres.user(), postgres.password())
                .locations(platform.getProperty("quarkus.flyway.locations").split(","))
                .outOfOrder(Boolean.parseBoolean(platform.getProperty("quarkus.flyway.out-of-order")))
                .placeholders(Map.of("service_role", postgres.serviceRole(database).name()));
    }

    private static Properties platformDefaults() {
        try {
            for (URL defaults : Collections.list(SchemaMigrations.class.getClassLoader().getResources("META-INF/microprofile-config.properties"))) {
                try (InputStream in = defaults.openStream()) {
                    Properties candidate = new Properties();
                    candidate.load(in);
                    if (candidate.containsKey("quarkus.flyway.locations")) {
                        return candidate;
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("no platform defaults (META-INF/microprofile-config.properties with quarkus.flyway.locations) on the classpath");
    }
}
