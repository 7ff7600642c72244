package dev.umbra.events;

/** A record that can never be decoded, however often it is retried: it belongs in the dead-letter topic. */
public class EventDecodingException extends RuntimeException {
    public EventDecodingException(String message) {
        super(message);
    }

    public EventDecodingException(String message, Throwable cause) {
        super(message, cause);
    }
}
