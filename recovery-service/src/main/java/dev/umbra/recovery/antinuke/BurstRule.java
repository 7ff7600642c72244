package dev.umbra.recovery.antinuke;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One detector rule: {@code threshold} entries of {@code action} by one actor within {@code window}.
 * Plain Java: the windows are counted over the stored entries, so this holds no state of its own.
 * Entries may arrive in any order (a later one before an earlier one), so a new entry is held against
 * every window of the rule's length that contains it, not only the one that ends at it.
 */
public record BurstRule(String pattern, String action, int threshold, Duration window) {

    /**
     * Whether the entries (one actor's, of this action, the one at {@code at} among them) make a burst in a
     * window that contains {@code at}. Such a window moved on to start at its first entry still contains
     * {@code at} and holds at least as many, so only windows that start at an entry need counting.
     */
    public boolean burstAt(List<Instant> entries, Instant at) {
        return entries.stream().filter(start -> !start.isBefore(earliestWith(at)) && !start.isAfter(at))
                .anyMatch(start -> entries.stream().filter(time -> !time.isBefore(start) && !time.isAfter(start.plus(window))).count()
                        >= threshold);
    }

    /** Entries from this instant on may share a window with one at {@code at}. */
    public Instant earliestWith(Instant at) {
        return at.minus(window);
    }

    /** Entries up to this instant may share a window with one at {@code at}. */
    public Instant latestWith(Instant at) {
        return at.plus(window);
    }

    /** A new entry at {@code at} belongs to a burst whose entries so far span {@code firstAt} to {@code lastAt}: within a window of them. */
    public boolean continues(Instant firstAt, Instant lastAt, Instant at) {
        return !at.isBefore(earliestWith(firstAt)) && !at.isAfter(latestWith(lastAt));
    }
}
