package dev.umbra.platform.inbox;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.time.Duration;

/** How the inbox retries, and how long it lets one attempt and one dead-letter send take. */
@ConfigMapping(prefix = "umbra.inbox")
public interface InboxSettings {

    /** Attempts for a handler failure that is neither transient nor a rejection: past them it is dead-lettered. */
    @WithDefault("5")
    @Min(1)
    int maxAttempts();

    @WithDefault("200ms")
    Duration initialBackoff();

    /** The cap of the backoff, also while a transient fault (the database down) holds a record back without limit. */
    @WithDefault("5s")
    Duration maxBackoff();

    /** One attempt (claim and handler) that has not finished by then is abandoned and retried as a transient fault. */
    @WithDefault("30s")
    Duration attemptTimeout();

    /** One send to the dead-letter topic; a send that fails is retried later with the record, never dropped. */
    @WithDefault("10s")
    Duration deadLetterTimeout();

    /** While a record waits out a transient fault, at most one WARN per consumer in this period. */
    @WithDefault("30s")
    Duration waitingWarningInterval();
}
