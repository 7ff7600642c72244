package dev.umbra.platform.inbox;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventCatalog;
import dev.umbra.events.EventEnvelope;
import io.smallrye.mutiny.Uni;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** Which handler applies which event type. Event types without a handler are skipped. */
public final class EventHandlers {

    private final Map<String, Route<?>> routes;

    private EventHandlers(Map<String, Route<?>> routes) {
        this.routes = Map.copyOf(routes);
    }

    public static Builder builder() {
        return new Builder();
    }

    Optional<Route<?>> routeOf(String eventType) {
        return Optional.ofNullable(routes.get(eventType));
    }

    record Route<E extends DomainEvent>(Class<E> type, EventHandler<E> handler) {
        /** Decodes the payload (an {@link dev.umbra.events.EventDecodingException} if it does not fit) and applies it. */
        E decode(EventEnvelope envelope) {
            return envelope.payloadAs(type);
        }

        Uni<Void> apply(Object event, EventEnvelope envelope) {
            return handler.handle(type.cast(event), envelope);
        }
    }

    public static final class Builder {
        private final Map<String, Route<?>> routes = new HashMap<>();

        public <E extends DomainEvent> Builder on(Class<E> type, EventHandler<E> handler) {
            String eventType = EventCatalog.entryOf(type).eventType();
            if (routes.putIfAbsent(eventType, new Route<>(type, handler)) != null) {
                throw new IllegalArgumentException("two handlers for " + eventType);
            }
            return this;
        }

        public EventHandlers build() {
            return new EventHandlers(routes);
        }
    }
}
