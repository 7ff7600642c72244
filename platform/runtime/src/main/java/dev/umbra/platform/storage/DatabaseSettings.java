package dev.umbra.platform.storage;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Min;
import java.time.Duration;

/**
 * How long anything may wait on the database, and how the guard reacts when it fails: a connection is
 * acquired within {@code acquireTimeout}, opened within {@code connectTimeout}, no statement or idle
 * transaction outlives its timeout on the server, and a guarded call gets its answer within
 * {@code callTimeout} even from a server that stops answering on an open connection (frozen, or a
 * network that drops packets without resetting the connection), which the server's own timeouts
 * cannot bound.
 */
@ConfigMapping(prefix = "umbra.database")
public interface DatabaseSettings {

    /** Waiting for a free connection of the pool. */
    @WithDefault("2s")
    Duration acquireTimeout();

    /** Opening a TCP connection to the server. */
    @WithDefault("2s")
    Duration connectTimeout();

    /** Set on every connection as the server's statement_timeout. */
    @WithDefault("5s")
    Duration statementTimeout();

    /** Set on every connection as the server's idle_in_transaction_session_timeout. */
    @WithDefault("10s")
    Duration idleInTransactionTimeout();

    /**
     * The longest one attempt of a guarded call (a request's transaction: the wait for a connection and
     * all its statements) waits for the database; a call that could not get a connection is tried again
     * (see Retry), each try with this budget. Past it the caller is answered 503 and the circuit counts a
     * failure; the call itself is not cancelled, so what it sent may still take effect when the server
     * answers again. Above a busy transaction's worst case (acquire plus a few statement timeouts), so that
     * overload is not taken for an absent database.
     */
    @WithDefault("20s")
    Duration callTimeout();

    Retry retry();

    Circuit circuit();

    /** Retries of a call that surely did not reach the database. */
    interface Retry {
        @WithDefault("2")
        @Min(0)
        int maxRetries();

        @WithDefault("50ms")
        Duration delay();

        @WithDefault("40ms")
        Duration jitter();
    }

    /** The circuit opens when the database is down, so that callers get a 503 at once. */
    interface Circuit {
        /** Calls in the rolling window. */
        @WithDefault("8")
        @Min(1)
        int requestVolumeThreshold();

        @WithDefault("0.5")
        @DecimalMin("0.01")
        @DecimalMax("1.0")
        double failureRatio();

        /** How long the circuit stays open before a trial call; also the Retry-After of the 503. */
        @WithDefault("2s")
        Duration delay();

        @WithDefault("2")
        @Min(1)
        int successThreshold();
    }
}
