package dev.umbra.recovery.antinuke;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One detector rule: {@code threshold} entries of {@code action} by one actor within {@code window}.
 * Plain Java: the windows are counted over the stored entries, so this holds no state of its own.
 * Entries may arrive in any order (a later one before an earlier one), so a new entry is held against
 * every window of the rule's length that contains it, not only the one that ends at it.
 */
public record BurstRule(String pattern, String action, int threshold, Duration window) {

    /** The entries of a burst, from the first to the last. */
    public record Span(Instant first, Instant last) {
    }

    /**
     * The burst the entries (one actor's, of this action, the one at {@code at} among them) make in the
     * windows that contain {@code at}, if any: the span of every entry of those windows, not {@code at} alone:
     * entries that arrived before it may lie before or after it. Such a window moved on to start at its
     * first entry still contains {@code at} and holds at least as many, so only windows that start at an
     * entry need counting.
     */
    public Optional<Span> burstAt(List<Instant> entries, Instant at) {
        // in time order, the window starting at each entry ends at an entry no earlier than the last one's:
        // one pass, however many entries a mass ban brings
        List<Instant> times = entries.stream().sorted().toList();
        Instant first = null;
        Instant last = null;
        int end = 0;
        for (int start = 0; start < times.size() && !times.get(start).isAfter(at); start++) {
            Instant from = times.get(start);
            end = Math.max(end, start);
            while (end + 1 < times.size() && !times.get(end + 1).isAfter(from.plus(window))) {
                end++;
            }
            if (!from.isBefore(earliestWith(at)) && end - start + 1 >= threshold) {
                first = first == null ? from : first;
                last = times.get(end);
            }
        }
        return first == null ? Optional.empty() : Optional.of(new Span(first, last));
    }

    /** Entries from this instant on may share a window with one at {@code at}. */
    public Instant earliestWith(Instant at) {
        return at.minus(window);
    }

    /** Entries up to this instant may share a window with one at {@code at}. */
    public Instant latestWith(Instant at) {
        return at.plus(window);
    }

    /** A burst belongs to an incident whose entries so far span {@code firstAt} to {@code lastAt} if they come within a window of each other. */
    public boolean continues(Instant firstAt, Instant lastAt, Span burst) {
        return !burst.last().isBefore(earliestWith(firstAt)) && !burst.first().isAfter(latestWith(lastAt));
    }
}
