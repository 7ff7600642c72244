package dev.umbra.billing.subscription;

import java.time.Instant;
import java.util.Objects;

/** The {@code number}-th billing period of a subscription (0 is the one the first charge pays): [start, end). */
public record Period(int number, Instant start, Instant end) {

    public Period {
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(end, "end");
        if (number < 0 || !end.isAfter(start)) {
            throw new IllegalArgumentException("not a period: #" + number + " " + start + " .. " + end);
        }
    }

    public boolean contains(Instant at) {
        return !at.isBefore(start) && at.isBefore(end);
    }
}
