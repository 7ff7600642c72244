package dev.umbra.testing;

import dev.umbra.devstack.Devstack;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Plain JDBC on a service database, for assertions on what was (not) stored and for faults a test sets up. */
public final class Database {

    private final String name;

    private Database(String name) {
        this.name = name;
    }

    public static Database of(String name) {
        return new Database(name);
    }

    public long count(String sql, Object... parameters) {
        return Long.parseLong(text(sql, parameters));
    }

    /**
     * Runs {@code sql} (say a {@code select … for update}) in a transaction that stays open, holding its
     * locks, until the returned handle is closed.
     */
    public AutoCloseable holding(String sql, Object... parameters) {
        try {
            Connection connection = Devstack.shared().postgres().connect(name);
            connection.setAutoCommit(false);
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                bind(statement, parameters);
                statement.execute();
            }
            return () -> {
                try (connection) {
                    connection.commit();
                }
            };
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** A statement that returns no rows (DDL, TRUNCATE …), committed. */
    public void execute(String sql, Object... parameters) {
        try (Connection connection = Devstack.shared().postgres().connect(name);
             PreparedStatement statement = connection.prepareStatement(sql)) {
            bind(statement, parameters);
            statement.execute();
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** The first column of the first row, as text. */
    public String text(String sql, Object... parameters) {
        try (Connection connection = Devstack.shared().postgres().connect(name);
             PreparedStatement statement = connection.prepareStatement(sql)) {
            bind(statement, parameters);
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getString(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private static void bind(PreparedStatement statement, Object... parameters) throws SQLException {
        for (int i = 0; i < parameters.length; i++) {
            statement.setObject(i + 1, parameters[i] instanceof java.time.Instant instant ? java.sql.Timestamp.from(instant) : parameters[i]);
        }
    }
}
