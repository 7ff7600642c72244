package dev.umbra.platform.workqueue;

import java.time.Instant;

/**
 * What a {@link WorkHandler} did with a claimed item. Only the outcomes of work that was really tried
 * ({@link Done}, {@link Failed}, {@link Unavailable}) spend an attempt; only {@link Failed} can use up
 * the item's attempts and dead-letter it, because an outage of the far side is not the item's fault.
 */
public sealed interface Outcome {

    /** The work is done. */
    record Done() implements Outcome {
    }

    /** Tried and failed for a reason of the item's own (the far side refused it): retried with backoff until max-attempts, then dead. */
    record Failed(String reason, Instant notBefore) implements Outcome {
    }

    /** Tried, and the far side was down, timed out or rate-limited us: retried without limit, never dead-lettered. */
    record Unavailable(String reason, Instant notBefore) implements Outcome {
    }

    /** Not tried (a circuit refused the call, the work is not due yet): back in line at {@code at} (null: after the first backoff step), no attempt spent. */
    record Deferred(String reason, Instant at) implements Outcome {
    }

    /**
     * This run's work is done and the item comes back at {@code next} for the following one (recurring work, a
     * sweep due later): its attempts start anew, and until {@code next} it is waiting, not late.
     */
    record Scheduled(String reason, Instant next) implements Outcome {
    }

    /** Can never succeed (unknown template, unreadable payload, nobody to tell): dead at once, with the reason. */
    record Poison(String reason) implements Outcome {
    }

    static Outcome done() {
        return new Done();
    }

    static Outcome failed(String reason) {
        return new Failed(reason, null);
    }

    /** {@code notBefore}: the far side said when to come back (HTTP Retry-After); null when it did not. */
    static Outcome unavailable(String reason, Instant notBefore) {
        return new Unavailable(reason, notBefore);
    }

    static Outcome deferred(String reason, Instant at) {
        return new Deferred(reason, at);
    }

    static Outcome scheduled(String reason, Instant next) {
        return new Scheduled(reason, next);
    }

    static Outcome poison(String reason) {
        return new Poison(reason);
    }
}
