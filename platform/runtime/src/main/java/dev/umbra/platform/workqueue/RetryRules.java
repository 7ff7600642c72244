package dev.umbra.platform.workqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.function.DoubleSupplier;

/**
 * What an outcome does to an item: its next status, attempts and due time. Plain Java, so the rules
 * are tested without a database.
 */
final class RetryRules {

    /**
     * The row after an outcome. {@code dueAt} and {@code error} are null for a finished item; {@code readyAt}
     * is set only when the item starts waiting anew (the age of a late item counts from it), else null.
     */
    record Next(String status, int attempts, int failures, Instant dueAt, String error, Instant readyAt) {

        Next(String status, int attempts, int failures, Instant dueAt, String error) {
            this(status, attempts, failures, dueAt, error, null);
        }
    }

    private static final int MAX_ERROR_LENGTH = 500;

    private final WorkQueueConfig.Settings settings;
    private final DoubleSupplier random;

    RetryRules(WorkQueueConfig.Settings settings, DoubleSupplier random) {
        this.settings = settings;
        this.random = random;
    }

    /**
     * Every try counts an attempt (the backoff grows with them); only a failure of the item's own counts a
     * failure, and {@code max-attempts} of those dead-letter it: an outage's rounds never do, however long.
     */
    Next after(Outcome outcome, int attemptsBefore, int failuresBefore, Instant now) {
        if (outcome instanceof Outcome.Done) {
            return new Next(WorkQueue.DONE, attemptsBefore + 1, failuresBefore, null, null);
        }
        if (outcome instanceof Outcome.Poison poison) {
            return new Next(WorkQueue.DEAD, attemptsBefore, failuresBefore, null, truncate("poison: " + poison.reason()));
        }
        if (outcome instanceof Outcome.Scheduled scheduled) {
            Instant next = later(scheduled.next(), now);
            return new Next(WorkQueue.PENDING, 0, 0, next, truncate(scheduled.reason()), next);
        }
        if (outcome instanceof Outcome.Deferred deferred) {
            Instant at = deferred.at() != null ? later(deferred.at(), now) : now.plus(backoff(1));
            return new Next(WorkQueue.PENDING, attemptsBefore, failuresBefore, at, truncate(deferred.reason()));
        }
        int attempts = attemptsBefore + 1;
        if (outcome instanceof Outcome.Unavailable unavailable) {
            return new Next(WorkQueue.PENDING, attempts, failuresBefore, retryAt(attempts, unavailable.notBefore(), now),
                    truncate(unavailable.reason()));
        }
        Outcome.Failed failed = (Outcome.Failed) outcome;
        int failures = failuresBefore + 1;
        return failures >= settings.maxAttempts()
                ? new Next(WorkQueue.DEAD, attempts, failures, null, truncate("gave up after " + failures + " attempts: " + failed.reason()))
                : new Next(WorkQueue.PENDING, attempts, failures, retryAt(attempts, failed.notBefore(), now), truncate(failed.reason()));
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
