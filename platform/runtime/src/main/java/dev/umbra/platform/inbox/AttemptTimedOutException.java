package dev.umbra.platform.inbox;

import java.time.Duration;

/** An attempt that did not finish in time: retried like any transient fault, never dead-lettered. */
class AttemptTimedOutException extends RuntimeException {
    AttemptTimedOutException(String consumer, Duration timeout) {
        super(consumer + ": attempt did not finish within " + timeout);
    }
}
