package dev.umbra.billing.subscription;

import java.time.Duration;
import java.util.Objects;

/**
 * How a failed renewal is retried: the next try {@code retryInterval} after a failure, and the
 * {@code maxFailures}-th failure cancels the subscription. Values come from configuration.
 */
public record DunningSettings(Duration retryInterval, int maxFailures) {

    public DunningSettings {
        Objects.requireNonNull(retryInterval, "retryInterval");
        if (retryInterval.isNegative() || retryInterval.isZero()) {
            throw new IllegalArgumentException("the retry interval must be positive: " + retryInterval);
        }
        if (maxFailures < 1) {
            throw new IllegalArgumentException("at least one failure ends dunning: " + maxFailures);
        }
    }
}
