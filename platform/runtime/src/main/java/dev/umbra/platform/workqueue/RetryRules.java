package dev.umbra.platform.workqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.function.DoubleSupplier;

/**
 * What an outcome does to an item: its next status, attempts and due time. Plain Java, so the rules
 * are tested without a database.
 */
final class RetryRules {

    /** The row after an outcome. {@code dueAt} and {@code error} are null for a finished item. */
    record Next(String status, int attempts, Instant dueAt, String error) {
    }

    private static final int MAX_ERROR_LENGTH = 500;

    private final WorkQueueConfig.Settings settings;
    private final DoubleSupplier random;

    RetryRules(WorkQueueConfig.Settings settings, DoubleSupplier random) {
        this.settings = settings;
        this.random = random;
    }

    Next after(Outcome outcome, int attemptsBefore, Instant now) {
        if (outcome instanceof Outcome.Done) {
            return new Next(WorkQueue.DONE, attemptsBefore + 1, null, null);
        }
        if (outcome instanceof Outcome.Poison poison) {
            return new Next(WorkQueue.DEAD, attemptsBefore, null, truncate("poison: " + poison.reason()));
        }
        if (outcome instanceof Outcome.Deferred deferred) {
            Instant at = deferred.at() != null ? later(deferred.at(), now) : now.plus(backoff(1));
            return new Next(WorkQueue.PENDING, attemptsBefore, at, truncate(deferred.reason()));
        }
        int attempts = attemptsBefore + 1;
        if (outcome instanceof Outcome.Unavailable unavailable) {
            return new Next(WorkQueue.PENDING, attempts, retryAt(attempts, unavailable.notBefore(), now), truncate(unavailable.reason()));
        }
        Outcome.Failed failed = (Outcome.Failed) outcome;
        return attempts >= settings.maxAttempts()
                ? new Next(WorkQueue.DEAD, attempts, null, truncate("gave up after " + attempts + " attempts: " + failed.reason()))
                : new Next(WorkQueue.PENDING, attempts, retryAt(attempts, failed.notBefore(), now), truncate(failed.reason()));
    }

    /** The backoff after {@code attempts} tries, and never before what the far side asked for. */
    Instant retryAt(int attempts, Instant notBefore, Instant now) {
        return later(notBefore, now.plus(backoff(attempts)));
    }

    /**
     * initial × 2^(attempts−1), capped at max, then a random point in its upper half: retries of one
     * outage spread out instead of coming back together, and none comes sooner than half the step.
     */
    Duration backoff(int attempts) {
        double exponential = settings.initialBackoff().toMillis() * Math.pow(2, Math.min(30, Math.max(0, attempts - 1)));
        double capped = Math.min(exponential, settings.maxBackoff().toMillis());
        return Duration.ofMillis((long) (capped * (0.5 + 0.5 * random.getAsDouble())));
    }

    private static Instant later(Instant at, Instant floor) {
        return at == null || at.isBefore(floor) ? floor : at;
    }

    private static String truncate(String error) {
        return error == null || error.length() <= MAX_ERROR_LENGTH ? error : error.substring(0, MAX_ERROR_LENGTH);
    }
}
