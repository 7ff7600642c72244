package dev.umbra.platform.storage;

import java.time.Duration;

/**
 * The database did not answer a guarded call within its call timeout ({@link DatabaseSettings#callTimeout}):
 * what the call sent may still take effect when the server answers again, so its outcome is unknown.
 */
public class DatabaseTimeoutException extends RuntimeException {

    DatabaseTimeoutException(Duration waited, Throwable cause) {
        super("the database did not answer within " + waited.toMillis() + " ms", cause);
    }
}
