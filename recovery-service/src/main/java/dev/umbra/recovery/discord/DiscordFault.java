package dev.umbra.recovery.discord;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.time.Duration;

/**
 * A call to Discord that got no usable answer. Either it surely never reached Discord (no connection
 * could be opened, or Discord answered 429: a rate-limited request is not processed), and may be sent
 * again; or it may have (a timeout waiting for the answer, a reset, a 5xx), and a create must then be
 * reconciled before it is sent again. Both count against the circuit breaker. The transport's
 * exception is not kept as the cause: a connect failure in the chain would read as the database's to
 * the platform's storage classifier.
 */
public final class DiscordFault extends RuntimeException {

    private final String account;
    private final boolean surelyNotArrived;
    private final Duration retryAfter;

    private DiscordFault(String account, String detail, boolean surelyNotArrived, Duration retryAfter) {
        super(detail == null ? account : account + ": " + detail, null, false, false);
        this.account = account;
        this.surelyNotArrived = surelyNotArrived;
        this.retryAfter = retryAfter;
    }

    public static DiscordFault of(Throwable transportFailure) {
        for (Throwable cause = transportFailure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ConnectException || cause instanceof UnknownHostException || cause instanceof NoRouteToHostException) {
                return new DiscordFault("could not connect to Discord", cause.getMessage(), true, null);
            }
        }
        return new DiscordFault("no answer from Discord", transportFailure.getClass().getSimpleName()
                + (transportFailure.getMessage() == null ? "" : " " + transportFailure.getMessage()), false, null);
    }

    static DiscordFault rateLimited(Duration retryAfter) {
        return new DiscordFault("Discord rate-limited the call (429)", null, true, retryAfter);
    }

    static DiscordFault failed(int status) {
        return new DiscordFault("Discord answered " + status, null, false, null);
    }

    /** Discord's circuit is open: the call was not made. */
    public static DiscordFault circuitOpen() {
        return new DiscordFault("Discord's circuit is open: not called", null, true, null);
    }

    /** What happened in our words, for owners: the transport's own text (hosts, ports) stays in the log. */
    public String account() {
        return account;
    }

    public boolean surelyNotArrived() {
        return surelyNotArrived;
    }

    /** When Discord said to come back (429's Retry-After); null otherwise. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
