package dev.umbra.platform.workqueue;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A claimed item. {@code leaseToken} is new for every claim: the queue accepts this worker's outcome
 * only while the row still carries it, so a worker whose lease ran out and was taken over cannot
 * complete or overwrite the row. {@code attempts} is the number of earlier tries, {@code failures} those of
 * them that failed for the item's own reason (an outage's never count: the queue dead-letters an item at
 * {@code max-attempts} failures); {@code abandonedClaims} the claims in a row before this one whose lease
 * ran out with nothing recorded. {@code claimedAtNanos}: {@link System#nanoTime()} when the claim answered; the lease
 * runs on the database's clock, so what is left of it is measured on this monotonic one, never by comparing clocks.
 */
public record WorkItem(String queue, String key, JsonNode payload, int attempts, long leaseToken, long claimedAtNanos,
        int abandonedClaims, int failures) {
}
