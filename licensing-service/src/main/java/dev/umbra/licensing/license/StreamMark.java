package dev.umbra.licensing.license;

import dev.umbra.events.EventEnvelope;
import java.time.Instant;
import java.util.Objects;

/**
 * Where an event stands in its aggregate's stream: the position its producer's outbox gave it (0 when
 * it carried none) and when it occurred. Within one aggregate the position decides which came first:
 * two replicas of a producer stamp their events with clocks that may disagree, and a later event
 * stamped earlier would be taken for a stale one and dropped. Between two aggregates (a guild's old
 * and new subscription) only the time can tell.
 */
public record StreamMark(long sequence, Instant at) {

    public StreamMark {
        Objects.requireNonNull(at, "at");
    }

    static StreamMark of(EventEnvelope envelope) {
        return new StreamMark(envelope.sequence(), envelope.occurredAt());
    }

    /** This event of an aggregate came before {@code latest}, an event of the same aggregate. */
    boolean before(StreamMark latest) {
        return sequence > 0 && latest.sequence > 0 ? sequence < latest.sequence : at.isBefore(latest.at);
    }

    /** This event came before {@code latest}, an event of another aggregate. */
    boolean earlierThan(StreamMark latest) {
        return at.isBefore(latest.at);
    }
}
