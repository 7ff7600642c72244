package dev.umbra.platform.inbox;

import dev.umbra.events.EventDecodingException;
import dev.umbra.platform.storage.StorageFaults;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;

/**
 * What a failed attempt says about the record. Only a record that can never be applied goes to the
 * dead-letter topic; an infrastructure fault says nothing about the record and holds it back, without
 * limit, until the fault passes.
 */
enum FailureKind {
    /** Undecodable, or rejected by its handler: the same every time. Dead-lettered at once. */
    NEVER_APPLICABLE,
    /** The database, a guard or a timeout: retried without limit, the partition waits. */
    TRANSIENT,
    /** A handler failure of unknown cause: retried a bounded number of times, then dead-lettered. */
    HANDLER;

    static FailureKind of(Throwable error) {
        if (error instanceof EventDecodingException || error instanceof RejectedEventException) {
            return NEVER_APPLICABLE;
        }
        if (error instanceof AttemptTimedOutException || error instanceof DeadLetterUnavailableException
                || error instanceof CircuitBreakerOpenException || StorageFaults.isTransient(error)) {
            return TRANSIENT;
        }
        return HANDLER;
    }
}
