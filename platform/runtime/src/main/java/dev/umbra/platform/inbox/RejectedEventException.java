package dev.umbra.platform.inbox;

/**
 * Thrown by a handler for an event that can never be applied (an unknown plan code, say): the inbox
 * sends it to the dead-letter topic at once instead of retrying it.
 */
public class RejectedEventException extends RuntimeException {
    public RejectedEventException(String message) {
        super(message);
    }
}
