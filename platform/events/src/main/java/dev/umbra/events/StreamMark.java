package dev.umbra.events;

import java.time.Instant;
import java.util.Objects;

/**
 * Where an event stands in its aggregate's stream: the position its producer's outbox gave it (0 when
 * it carried none), when it occurred, and when its transaction committed where the record said so (null
 * otherwise). Within one aggregate the position decides which came first: two replicas of a producer stamp
 * their events with clocks that may disagree, and a later event stamped earlier would be taken for a stale
 * one and dropped. Between two aggregates of one producer (a guild's old and new subscription) the commit
 * times decide, which the producer's one database clock gives; where either is unknown, the times the
 * events occurred. What consumers keep to skip an event older than one they already applied (a redriven
 * dead letter, say).
 */
public record StreamMark(long sequence, Instant at, Instant committedAt) {

    public StreamMark {
        Objects.requireNonNull(at, "at");
    }

    /** A mark without a known commit time. */
    public StreamMark(long sequence, Instant at) {
        this(sequence, at, null);
    }

    public static StreamMark of(EventEnvelope envelope) {
        return new StreamMark(envelope.sequence(), envelope.occurredAt(), envelope.committedAt());
    }

    /**
     * This event of an aggregate came before {@code latest}, an event of the same aggregate. Equal
     * times do not count as before: of two events of one transaction without sequences (a LicenseGranted
     * and the LicenseSuspended written with it), the later in the partition is the newer.
     */
    public boolean before(StreamMark latest) {
        return sequence > 0 && latest.sequence > 0 ? sequence < latest.sequence : at.isBefore(latest.at);
    }

    /**
     * Two marks of one event are equal whether or not one of them kept its commit time: only some stores keep it, and a mark
     * read back without it must not look like a change (a redelivered event would rewrite its row for nothing).
     */
    @Override
    public boolean equals(Object other) {
        return other instanceof StreamMark mark && sequence == mark.sequence && at.equals(mark.at);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sequence, at);
    }

    /** This event came before {@code latest}, an event of another aggregate of the same producer. */
    public boolean earlierThan(StreamMark latest) {
        return committedAt != null && latest.committedAt != null ? committedAt.isBefore(latest.committedAt) : at.isBefore(latest.at);
    }
}
