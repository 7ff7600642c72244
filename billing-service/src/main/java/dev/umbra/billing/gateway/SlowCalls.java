package dev.umbra.billing.gateway;

import java.time.Duration;

/**
 * The share of slow calls among the last {@code window} calls of a client (a slow call took longer
 * than the threshold, retries included). SmallRye's circuit breaker has no slow-call rule; this is
 * the measure, published as a gauge for alerting, while the read timeout bounds how slow a call can be.
 */
final class SlowCalls {

    private final Duration threshold;
    private final boolean[] slow;
    private int next;
    private int recorded;

    SlowCalls(Duration threshold, int window) {
        this.threshold = threshold;
        this.slow = new boolean[window];
    }

    synchronized void record(Duration took) {
        slow[next] = took.compareTo(threshold) > 0;
        next = (next + 1) % slow.length;
        recorded = Math.min(recorded + 1, slow.length);
    }

    /** Between 0 and 1; 0 before any call. */
    synchronized double rate() {
        int count = 0;
        for (int i = 0; i < recorded; i++) {
            count += slow[i] ? 1 : 0;
        }
        return recorded == 0 ? 0 : (double) count / recorded;
    }
}
