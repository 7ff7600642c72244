package dev.umbra.platform.storage;

import io.smallrye.mutiny.CompositeException;
import io.vertx.pgclient.PgException;
import java.net.ConnectException;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.eclipse.microprofile.faulttolerance.exceptions.BulkheadException;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;

/**
 * Tells the database faults that pass from the ones that will happen again. The line that matters
 * for money and for events is between a statement that surely did not run (it may be retried as it
 * is) and one whose outcome is unknown (retried only where a retry cannot double an effect, such as
 * an inbox transaction whose claim row dedupes it).
 */
public final class StorageFaults {

    /** SQL states of faults that pass: the transaction was rolled back and may simply run again. */
    private static final Set<String> TRANSIENT_STATES = Set.of(
            "40001", // serialization_failure
            "40P01", // deadlock_detected
            "55P03", // lock_not_available
            "57014", // query_canceled: statement_timeout
            "57P01", // admin_shutdown
            "57P02", // crash_shutdown
            "57P03", // cannot_connect_now: starting up or shutting down
            "53300", // too_many_connections
            "25P03", // idle_in_transaction_session_timeout
            "57P05", // idle_session_timeout
            "25006"); // read_only_sql_transaction: a write that reached a standby, as during a failover

    /**
     * Classes of SQL states that pass with the infrastructure, whatever the event or request: insufficient
     * resources (53: disk full, out of memory, a configuration limit), system errors outside PostgreSQL
     * (58: I/O), and the server refusing our credentials (28: a password being rotated). Never the data's fault.
     */
    private static final Set<String> TRANSIENT_CLASSES = Set.of("53", "58", "28");

    /**
     * SQL states of a database that is there but busy, or of a transaction that lost to another one:
     * transient, but no sign that the database is away.
     */
    private static final Set<String> BUSY_OR_CONTENDED_STATES = Set.of("40001", "40P01", "55P03", "57014", "25P03", "57P05");

    /** SQL states the server answers before it runs anything of ours. */
    private static final Set<String> REFUSED_STATES = Set.of("57P03", "53300");

    private StorageFaults() {
    }

    /**
     * The statement surely did not reach the database: no connection could be made or acquired, or
     * a guard refused the call. Retrying it cannot double its effect.
     */
    public static boolean surelyNotExecuted(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof ConnectException || cause instanceof CircuitBreakerOpenException
                    || cause instanceof BulkheadException || poolExhausted(cause)) {
                return true;
            }
            String state = sqlState(cause);
            if (state != null && (REFUSED_STATES.contains(state) || state.startsWith("08"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * An infrastructure fault that will pass: the database is unreachable, restarting, overloaded, or
     * the transaction lost a race (serialization failure, deadlock) or ran out of time. Whether the
     * work ran is not known in every case; see {@link #surelyNotExecuted}. An I/O error is one, but not
     * JSON that does not parse: Jackson's errors are IOExceptions too, and they come back every time.
     */
    public static boolean isTransient(Throwable error) {
        for (Throwable cause : causes(error)) {
            if (surelyNotExecuted(cause) || cause instanceof TimeoutException
                    || cause instanceof org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException
                    || cause instanceof io.vertx.sqlclient.ClosedConnectionException
                    || cause instanceof java.io.IOException && !(cause instanceof com.fasterxml.jackson.core.JacksonException)) {
                return true;
            }
            String state = sqlState(cause);
            if (state != null && passes(state)) {
                return true;
            }
            if ((cause instanceof io.vertx.core.VertxException || vertxWithoutStackTrace(cause)) && lostConnection(cause.getMessage())
                    || cause instanceof IllegalStateException && closedUnderneath(cause.getMessage())) {
                return true;
            }
        }
        return false;
    }

    /** A SQL state of the infrastructure's, which passes: one of {@link #TRANSIENT_STATES}, a connection exception (08), or a class of {@link #TRANSIENT_CLASSES}. */
    private static boolean passes(String state) {
        return TRANSIENT_STATES.contains(state) || state.startsWith("08") || state.length() >= 2 && TRANSIENT_CLASSES.contains(state.substring(0, 2));
    }

    /**
     * The database cannot be reached or is going away: the faults the database circuit counts. Not a
     * database that answers but is busy (no pooled connection within the acquire timeout, too many
     * connections, a statement timeout) nor a transaction that lost to another one (serialization
     * failure, deadlock, lock not available): those fail or retry their own call, and counting them
     * would turn a moment of overload into seconds of refusing every request.
     */
    public static boolean databaseAway(Throwable error) {
        if (!isTransient(error)) {
            return false;
        }
        for (Throwable cause : causes(error)) {
            String state = sqlState(cause);
            if (poolExhausted(cause) || cause instanceof BulkheadException
                    || state != null && (BUSY_OR_CONTENDED_STATES.contains(state) || state.startsWith("53"))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The write lost a race with another one on the same rows: a unique key taken meanwhile, or an
     * optimistic lock whose version moved. Nothing was written; an idempotent operation may simply
     * run again and find the winner's result.
     */
    public static boolean lostRace(Throwable error) {
        for (Throwable cause : causes(error)) {
            if ("23505".equals(sqlState(cause))) {
                return true;
            }
        }
        return rowChangedMeanwhile(error);
    }

    /** An optimistic lock whose version moved: another transaction changed the row since it was read. Trying again reads it anew. */
    public static boolean rowChangedMeanwhile(Throwable error) {
        for (Throwable cause : causes(error)) {
            if (cause instanceof org.hibernate.StaleStateException || cause instanceof jakarta.persistence.OptimisticLockException) {
                return true;
            }
        }
        return false;
    }

    /** A statement the server cut short at its {@code statement_timeout} (57014): it may simply have had too much to do. */
    public static boolean statementTimedOut(Throwable error) {
        for (Throwable cause : causes(error)) {
            if ("57014".equals(sqlState(cause))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The server rolled the whole transaction back to break a deadlock or a serialization conflict with
     * another transaction: nothing of it was written, and an idempotent transaction may run again.
     */
    public static boolean rolledBackByServer(Throwable error) {
        for (Throwable cause : causes(error)) {
            String state = sqlState(cause);
            if ("40P01".equals(state) || "40001".equals(state)) {
                return true;
            }
        }
        return false;
    }

    /** The SQL state the server answered, as the pg client reports it or as Hibernate converted it. */
    private static String sqlState(Throwable cause) {
        if (cause instanceof PgException pg) {
            return pg.getSqlState();
        }
        if (cause instanceof org.hibernate.JDBCException jdbc) {
            return jdbc.getSQLState();
        }
        if (cause instanceof java.sql.SQLException sql) {
            return sql.getSQLState();
        }
        return null;
    }

    /** The pool waited its acquire timeout for a free connection (Vert.x says only "Timeout"). */
    private static boolean poolExhausted(Throwable cause) {
        String name = cause.getClass().getSimpleName();
        return cause instanceof PoolExhaustedException || name.equals("ConnectionPoolTooBusyException")
                || (name.equals("NoStackTraceTimeoutException") || name.equals("NoStackTraceThrowable"))
                && "Timeout".equals(cause.getMessage());
    }

    /** Vert.x reports some failures as a bare Throwable without a stack trace (Hibernate Reactive's "Connection is not active" among them). */
    private static boolean vertxWithoutStackTrace(Throwable cause) {
        return cause.getClass().getSimpleName().equals("NoStackTraceThrowable");
    }

    /** How Hibernate Reactive reports a connection that closed under its transaction. */
    private static boolean closedUnderneath(String message) {
        return message != null && (message.contains("Connection is not active") || message.contains("Pool closed")
                || message.contains("connection may have been lost"));
    }

    private static boolean lostConnection(String message) {
        return message != null && (message.contains("Connection refused") || message.contains("closed")
                || message.contains("Connection reset") || message.contains("Connection is not active")
                || message.contains("Pool closed") || message.contains("connection may have been lost"));
    }

    /**
     * {@code error} and its causes, the failures inside a Mutiny CompositeException included (a failed rollback
     * after a failed statement), each once, at most 32. Only {@link #isTransient} looks at them all here:
     * whether a statement ran is told by the first failure alone.
     */
    public static java.util.List<Throwable> causes(Throwable error) {
        java.util.List<Throwable> chain = new java.util.ArrayList<>();
        java.util.Deque<Throwable> pending = new java.util.ArrayDeque<>(java.util.List.of(error));
        while (!pending.isEmpty() && chain.size() < 32) {
            Throwable cause = pending.pop();
            if (chain.contains(cause)) {
                continue;
            }
            chain.add(cause);
            if (cause instanceof CompositeException composite) {
                pending.addAll(composite.getCauses());
            }
            if (cause.getCause() != null) {
                pending.add(cause.getCause());
            }
        }
        return chain;
    }
}
