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

    Dedupe dedupe();

    interface Dedupe {
        /**
         * How long a consumer remembers an event it applied ({@code processed_event}); older claims are
         * trimmed. Longer than Kafka's retention (7 days by default) plus the longest a consumer may lag,
         * and the horizon of audit replays: an event older than this may be applied again if re-published,
         * so audit-service replays none older than half of it (the rest is room for a consumer's lag). Set it
         * the same in every service.
         */
        @WithDefault("P30D")
        Duration horizon();

        /** Claims deleted per statement, so a trim never holds many locks or a long transaction. */
        @WithDefault("1000")
        @Min(1)
        int trimBatchSize();

        /** From one trim run to the next. */
        @WithDefault("PT1H")
        Duration trimInterval();
    }

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
