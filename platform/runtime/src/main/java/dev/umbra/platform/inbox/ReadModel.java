package dev.umbra.platform.inbox;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventEnvelope;
import io.smallrye.mutiny.Uni;

/**
 * A read model kept from the events of a consumer's topics: written once in the platform, declared by
 * each service that needs it with {@code EventHandlers.builder().feeding(readModel)}. It learns from an
 * event before the service's own handler of that event runs, in the same inbox transaction, so the
 * handler already sees what the event taught.
 */
public interface ReadModel {

    /** Declares the events it learns from. */
    void learnFrom(Feed feed);

    /** Where a read model declares its handlers. */
    interface Feed {
        <E extends DomainEvent> Feed on(Class<E> type, EventHandler<E> handler);

        /** A handler of every event of the consumer's topics, known to the catalogue or not. */
        Feed onEvery(EnvelopeHandler handler);
    }

    /** Learns from an event as it arrived, whatever its type. */
    @FunctionalInterface
    interface EnvelopeHandler {
        Uni<Void> handle(EventEnvelope envelope);
    }
}
