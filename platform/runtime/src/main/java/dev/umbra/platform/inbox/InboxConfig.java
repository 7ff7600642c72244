package dev.umbra.platform.inbox;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Duration;

/**
 * How the inbox retries, times out and dead-letters. Defaults live here and nowhere else; the test
 * profile shortens them in this module's {@code microprofile-config.properties}.
 */
@ConfigMapping(prefix = "umbra.inbox")
public interface InboxConfig {

    /** Attempts at a record whose handler fails deterministically (not an infrastructure fault) before it is dead-lettered. */
    @WithDefault("5")
    @Min(1)
    int maxAttempts();

    /** First pause after a failed attempt; it doubles up to {@link #maxBackoff()}, with jitter. */
    @WithDefault("PT0.2S")
    Duration initialBackoff();

    /** Longest pause between attempts, also while an infrastructure fault lasts (those are retried without limit). */
    @WithDefault("PT10S")
    Duration maxBackoff();

    /** How long one handler invocation may take; past it the attempt fails as a transient fault and is retried. */
    @WithDefault("PT30S")
    Duration attemptTimeout();

    /** Most records applied in one transaction. */
    @WithDefault("500")
    @Min(1)
    @Max(5000)
    int batchSize();

    /** At most one warning per consumer in this interval while a partition waits for an infrastructure fault to pass. */
    @WithDefault("PT30S")
    Duration waitingWarningInterval();

    DeadLetter deadLetter();

    interface DeadLetter {
        /** How long one send to {@code <topic>.dlq} may take. */
        @WithDefault("PT10S")
        Duration timeout();

        /** Further sends after a failed one; then the attempt fails and the record is tried again later. */
        @WithDefault("2")
        @Min(0)
        int retries();
    }
}
