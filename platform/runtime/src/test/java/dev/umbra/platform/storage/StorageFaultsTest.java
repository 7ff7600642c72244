package dev.umbra.platform.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.pgclient.PgException;
import java.net.ConnectException;
import java.util.concurrent.CompletionException;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.junit.jupiter.api.Test;

class StorageFaultsTest {

    @Test
    void a_refused_connection_surely_did_not_run_even_when_wrapped() {
        Throwable wrapped = new CompletionException(new IllegalStateException(new ConnectException("Connection refused")));
        assertThat(StorageFaults.surelyNotExecuted(wrapped)).isTrue();
        assertThat(StorageFaults.isTransient(wrapped)).isTrue();
    }

    @Test
    void an_open_circuit_surely_did_not_run() {
        assertThat(StorageFaults.surelyNotExecuted(new CircuitBreakerOpenException("open"))).isTrue();
    }

    @Test
    void a_serialization_failure_is_transient_but_may_have_run() {
        PgException conflict = new PgException("could not serialize access", "ERROR", "40001", null);
        assertThat(StorageFaults.isTransient(conflict)).isTrue();
        assertThat(StorageFaults.surelyNotExecuted(conflict)).isFalse();
    }

    @Test
    void only_a_database_that_cannot_be_reached_counts_as_away() {
        assertThat(StorageFaults.databaseAway(new CompletionException(new ConnectException("Connection refused")))).isTrue();
        assertThat(StorageFaults.databaseAway(new PgException("terminating connection", "FATAL", "57P01", null))).isTrue();
        assertThat(StorageFaults.databaseAway(io.vertx.sqlclient.ClosedConnectionException.INSTANCE)).isTrue();

        assertThat(StorageFaults.databaseAway(new io.vertx.core.impl.NoStackTraceTimeoutException("Timeout"))).as("pool exhausted").isFalse();
        assertThat(StorageFaults.databaseAway(new PgException("could not serialize access", "ERROR", "40001", null))).isFalse();
        assertThat(StorageFaults.databaseAway(new PgException("deadlock detected", "ERROR", "40P01", null))).isFalse();
        assertThat(StorageFaults.databaseAway(new PgException("canceling statement due to statement timeout", "ERROR", "57014", null)))
                .isFalse();
        assertThat(StorageFaults.databaseAway(new PgException("sorry, too many clients already", "FATAL", "53300", null))).isFalse();
        assertThat(StorageFaults.databaseAway(new PgException("duplicate key", "ERROR", "23505", null))).isFalse();
    }

    @Test
    void faults_of_the_infrastructure_that_no_event_causes_are_transient_so_the_inbox_never_dead_letters_for_them() {
        // a write on a standby during a failover, a full disk, memory, I/O, credentials being rotated, an idle session ended
        for (String state : new String[] {"25006", "53100", "53200", "53400", "58030", "28P01", "28000", "57P05"}) {
            assertThat(StorageFaults.isTransient(new PgException("infrastructure", "ERROR", state, null))).as(state).isTrue();
        }
        assertThat(StorageFaults.databaseAway(new PgException("cannot execute INSERT in a read-only transaction", "ERROR", "25006", null)))
                .as("the primary is gone").isTrue();
        assertThat(StorageFaults.databaseAway(new PgException("could not extend file: No space left on device", "ERROR", "53100", null)))
                .as("there, but out of a resource").isFalse();
        // the data's own faults stay permanent
        for (String state : new String[] {"23502", "23503", "22001", "42P01", "XX000"}) {
            assertThat(StorageFaults.isTransient(new PgException("data", "ERROR", state, null))).as(state).isFalse();
        }
    }

    @Test
    void json_that_does_not_parse_is_no_passing_fault_although_java_calls_it_an_io_error() {
        Throwable unparsable = new java.io.UncheckedIOException(new com.fasterxml.jackson.core.JsonParseException(null, "Unexpected character"));
        assertThat(StorageFaults.isTransient(unparsable)).isFalse();
        assertThat(StorageFaults.isTransient(new java.io.UncheckedIOException(new java.io.IOException("Connection reset by peer")))).isTrue();
    }

    @Test
    void a_server_starting_up_refuses_before_running_anything() {
        assertThat(StorageFaults.surelyNotExecuted(new PgException("the database system is starting up", "FATAL", "57P03", null)))
                .isTrue();
    }

    @Test
    void a_constraint_violation_or_a_bug_is_not_transient() {
        assertThat(StorageFaults.isTransient(new PgException("duplicate key", "ERROR", "23505", null))).isFalse();
        assertThat(StorageFaults.isTransient(new IllegalArgumentException("unknown plan"))).isFalse();
        assertThat(StorageFaults.isTransient(new NullPointerException())).isFalse();
    }

    @Test
    void a_duplicate_key_or_a_moved_version_is_a_lost_race_also_as_hibernate_converted_it() {
        var duplicate = new org.hibernate.exception.ConstraintViolationException("duplicate key",
                new java.sql.SQLException("duplicate key", "23505"), "guild_pkey");
        assertThat(StorageFaults.lostRace(new CompletionException(duplicate))).isTrue();
        assertThat(StorageFaults.lostRace(new jakarta.persistence.OptimisticLockException("row was updated"))).isTrue();
        assertThat(StorageFaults.lostRace(new PgException("could not serialize access", "ERROR", "40001", null))).isFalse();
        assertThat(StorageFaults.isTransient(duplicate)).isFalse();
    }

    @Test
    void a_deadlock_that_hibernate_converted_is_transient() {
        var deadlock = new org.hibernate.exception.LockAcquisitionException("deadlock detected",
                new java.sql.SQLException("deadlock detected", "40P01"));
        assertThat(StorageFaults.isTransient(deadlock)).isTrue();
        assertThat(StorageFaults.surelyNotExecuted(deadlock)).isFalse();
    }

    @Test
    void a_connection_that_closed_under_a_transaction_is_transient_as_hibernate_reactive_reports_it() {
        assertThat(StorageFaults.isTransient(new IllegalStateException("Connection is not active now, current status: CLOSED"))).isTrue();
        assertThat(StorageFaults.isTransient(new IllegalStateException("HR000090: Live transaction detected while closing the connection",
                io.vertx.sqlclient.ClosedConnectionException.INSTANCE))).isTrue();
        assertThat(StorageFaults.isTransient(new IllegalStateException("guild 1 always fails"))).isFalse();
        // as it reached the inbox when the outage IT cut the database under a batch (the CI run that failed)
        assertThat(StorageFaults.isTransient(new io.smallrye.mutiny.CompositeException(
                new io.vertx.core.impl.NoStackTraceThrowable("Connection is not active now, current status: CLOSED"),
                new io.vertx.core.impl.NoStackTraceThrowable("Connection is not active now, current status: CLOSED")))).isTrue();
        assertThat(StorageFaults.isTransient(new io.vertx.core.impl.NoStackTraceThrowable("guild 1 always fails"))).isFalse();
    }

    @Test
    void a_connection_reset_while_a_statement_runs_is_transient_but_may_have_run() {
        // what the pg client reports when the server's side of the socket goes away with data unread
        Throwable reset = new CompletionException(new java.net.SocketException("Connection reset"));
        assertThat(StorageFaults.isTransient(reset)).isTrue();
        assertThat(StorageFaults.surelyNotExecuted(reset)).isFalse();
        assertThat(StorageFaults.isTransient(new java.nio.channels.ClosedChannelException())).isTrue();
    }

    @Test
    void aDeadlockVictimOrASerializationFailureWasRolledBackWholeByTheServer() {
        assertThat(StorageFaults.rolledBackByServer(new CompletionException(new PgException("deadlock detected", "ERROR", "40P01", null))))
                .isTrue();
        assertThat(StorageFaults.rolledBackByServer(new PgException("could not serialize access", "ERROR", "40001", null))).isTrue();
        assertThat(StorageFaults.rolledBackByServer(new PgException("duplicate key", "ERROR", "23505", null))).isFalse();
    }
}
