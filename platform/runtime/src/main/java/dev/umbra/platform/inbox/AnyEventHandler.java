package dev.umbra.platform.inbox;

import dev.umbra.events.EventEnvelope;
import io.smallrye.mutiny.Uni;
import java.util.List;

/**
 * Applies events of any type, known to the catalogue or not, as they arrived: for a consumer of every
 * topic (the audit log). Consecutive records of a batch come together, so that a set-based handler
 * stores a run with a few statements; the outcome must be the one of applying them one after the other
 * in the list's order. It runs inside the inbox transaction, like an {@link EventHandler}, and a run that
 * fails is applied again one record at a time, so that a failure is the failing record's alone.
 */
@FunctionalInterface
public interface AnyEventHandler {

    Uni<Void> handle(List<Received> events);

    /** An event as it arrived, and where it was read. */
    record Received(EventEnvelope envelope, RecordPosition position) {
    }

    /** Where the record was read: its topic, partition and offset. */
    record RecordPosition(String topic, int partition, long offset) {
    }
}
