package dev.umbra.recovery.antinuke;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One detector rule: {@code threshold} entries of {@code action} by one actor within {@code window}.
 * Plain Java: the windows are counted over the stored entries, so this holds no state of its own.
 */
public record BurstRule(String pattern, String action, int threshold, Duration window) {

    /** Whether the entries (one actor's, of this action) make a burst in the window that ends at {@code at}. */
    public boolean burstAt(List<Instant> entries, Instant at) {
        Instant from = windowStart(at);
        return entries.stream().filter(time -> !time.isBefore(from) && !time.isAfter(at)).count() >= threshold;
    }

    /** Entries at or after this instant are in the window that ends at {@code at}. */
    public Instant windowStart(Instant at) {
        return at.minus(window);
    }

    /** A new entry at {@code at} still belongs to a burst whose last entry was at {@code lastAt}: it did not stop for a whole window. */
    public boolean continues(Instant lastAt, Instant at) {
        return !lastAt.isBefore(windowStart(at));
    }
}
