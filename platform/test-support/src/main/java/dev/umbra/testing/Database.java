package dev.umbra.testing;

import dev.umbra.devstack.Devstack;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Plain JDBC on a service database, for assertions on what was (not) stored and for faults a test sets up.
 * Statements share one connection per database ({@link #holding} keeps its own): awaited conditions poll
 * every 100 ms, and a connection per poll cost a server process and a SCRAM handshake each time (the
 * hottest frames of a test JVM's profile).
 */
public final class Database {

    private static final Map<String, Object> LOCKS = new ConcurrentHashMap<>();
    private static final Map<String, Connection> OPEN = new ConcurrentHashMap<>();
    private static final Duration STATEMENT_PATIENCE = Duration.ofSeconds(60);

    private final String name;
    /** Logged in as the service's own role, which owns nothing, rather than as the database's owner. */
    private final boolean asService;

    private Database(String name, boolean asService) {
        this.name = name;
        this.asService = asService;
    }

    /** The database as its owner sees it, who may do anything: for assertions and for faults a test sets up. */
    public static Database of(String name) {
        return new Database(name, false);
    }

    /**
     * The same database as its service's role sees it ({@link dev.umbra.devstack.PostgresServer#serviceRole}): for
     * checks of what the service may and may not do.
     */
    public Database asService() {
        return new Database(name, true);
    }

    public long count(String sql, Object... parameters) {
        return Long.parseLong(text(sql, parameters));
    }

    /**
     * Runs {@code sql} (say a {@code select … for update}) in a transaction that stays open, holding its
     * locks, until the returned handle is closed, which commits it.
     */
    public AutoCloseable holding(String sql, Object... parameters) {
        return held(sql, true, parameters);
    }

    /** As {@link #holding}, but closing the handle rolls the transaction back: what it wrote never was. */
    public AutoCloseable holdingUncommitted(String sql, Object... parameters) {
        return held(sql, false, parameters);
    }

    private AutoCloseable held(String sql, boolean commit, Object... parameters) {
        try {
            Connection connection = connect();
            connection.setAutoCommit(false);
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                bind(statement, parameters);
                statement.execute();
            }
            return () -> {
                try (connection) {
                    if (commit) {
                        connection.commit();
                    } else {
                        connection.rollback();
                    }
                }
            };
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** A statement that returns no rows (DDL, TRUNCATE …), committed. */
    public void execute(String sql, Object... parameters) {
        onSharedConnection(sql, connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                bind(statement, parameters);
                statement.execute();
                return null;
            }
        });
    }

    /** The first column of the first row, as text. */
    public String text(String sql, Object... parameters) {
        return onSharedConnection(sql, connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                bind(statement, parameters);
                try (ResultSet rows = statement.executeQuery()) {
                    rows.next();
                    return rows.getString(1);
                }
            }
        });
    }

    /** Every row, each as its columns' text (null stays null): for checks that compare whole tables. */
    public List<List<String>> rows(String sql, Object... parameters) {
        return onSharedConnection(sql, connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                bind(statement, parameters);
                try (ResultSet rows = statement.executeQuery()) {
                    int columns = rows.getMetaData().getColumnCount();
                    List<List<String>> all = new ArrayList<>();
                    while (rows.next()) {
                        List<String> row = new ArrayList<>(columns);
                        for (int i = 1; i <= columns; i++) {
                            row.add(rows.getString(i));
                        }
                        all.add(row);
                    }
                    return all;
                }
            }
        });
    }

    private interface Statements<T> {
        T run(Connection connection) throws SQLException;
    }

    /** Once more on a new connection when the shared one died (a restarted server): not when the statement failed. */
    private <T> T onSharedConnection(String sql, Statements<T> statements) {
        String key = asService ? name + " as its service" : name;
        synchronized (LOCKS.computeIfAbsent(key, n -> new Object())) {
            try {
                Connection connection = OPEN.get(key);
                if (connection == null) {
                    return statements.run(open(key));
                }
                try {
                    return statements.run(connection);
                } catch (SQLException e) {
                    if (connection.isValid(1)) {
                        throw e;
                    }
                    OPEN.remove(key);
                    closeQuietly(connection);
                    return statements.run(open(key));
                }
            } catch (SQLException e) {
                throw new IllegalStateException(sql, e);
            }
        }
    }

    private Connection connect() throws SQLException {
        return asService ? Devstack.shared().postgres().connectAsService(name) : Devstack.shared().postgres().connect(name);
    }

    private Connection open(String key) throws SQLException {
        Connection connection = connect();
        // A statement stuck on a lock would otherwise hold up every other one on this database for good.
        connection.setNetworkTimeout(Runnable::run, (int) STATEMENT_PATIENCE.toMillis());
        OPEN.put(key, connection);
        return connection;
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // it is gone already
        }
    }

    private static void bind(PreparedStatement statement, Object... parameters) throws SQLException {
        for (int i = 0; i < parameters.length; i++) {
            statement.setObject(i + 1, parameters[i] instanceof java.time.Instant instant ? java.sql.Timestamp.from(instant) : parameters[i]);
        }
    }
}
