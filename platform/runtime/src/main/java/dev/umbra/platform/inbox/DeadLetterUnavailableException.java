package dev.umbra.platform.inbox;

/** The dead-letter topic could not take a record in time: the record is kept and retried, never lost. */
class DeadLetterUnavailableException extends RuntimeException {
    DeadLetterUnavailableException(String topic, Throwable cause) {
        super("cannot write to " + topic + ": " + cause, cause);
    }
}
