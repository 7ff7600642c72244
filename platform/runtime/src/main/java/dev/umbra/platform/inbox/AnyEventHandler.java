package dev.umbra.platform.inbox;

import dev.umbra.events.EventEnvelope;
import io.smallrye.mutiny.Uni;

/**
 * Applies an event of any type, known to the catalogue or not, as it arrived: for a consumer of every
 * topic (the audit log). It runs inside the inbox transaction, like an {@link EventHandler}.
 */
@FunctionalInterface
public interface AnyEventHandler {
    Uni<Void> handle(EventEnvelope envelope, RecordPosition position);

    /** Where the record was read: its topic, partition and offset. */
    record RecordPosition(String topic, int partition, long offset) {
    }
}
