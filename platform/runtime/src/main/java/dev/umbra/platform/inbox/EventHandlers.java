package dev.umbra.platform.inbox;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventCatalog;
import dev.umbra.events.EventEnvelope;
import io.smallrye.mutiny.Uni;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Which handler applies which event type. Event types without a handler go to the handler of any event
 * if there is one ({@link Builder#onAnyOther}), and are skipped otherwise.
 */
public final class EventHandlers {

    private final Map<String, Route> routes;
    private final Route anyOther;

    private EventHandlers(Map<String, Route> routes, Route anyOther) {
        this.routes = Map.copyOf(routes);
        this.anyOther = anyOther;
    }

    public static Builder builder() {
        return new Builder();
    }

    Optional<Route> routeOf(String eventType) {
        return Optional.ofNullable(routes.getOrDefault(eventType, anyOther));
    }

    /** How a record's event is decoded and applied. */
    sealed interface Route {
        /** The event the handler takes; an {@link dev.umbra.events.EventDecodingException} if the payload does not fit. */
        Object decode(EventEnvelope envelope);

        Uni<Void> apply(Object event, EventEnvelope envelope, AnyEventHandler.RecordPosition position);
    }

    private record Typed<E extends DomainEvent>(Class<E> type, EventHandler<E> handler) implements Route {
        @Override
        public Object decode(EventEnvelope envelope) {
            return envelope.payloadAs(type);
        }

        @Override
        public Uni<Void> apply(Object event, EventEnvelope envelope, AnyEventHandler.RecordPosition position) {
            return handler.handle(type.cast(event), envelope);
        }
    }

    private record Any(AnyEventHandler handler) implements Route {
        @Override
        public Object decode(EventEnvelope envelope) {
            return envelope;
        }

        @Override
        public Uni<Void> apply(Object event, EventEnvelope envelope, AnyEventHandler.RecordPosition position) {
            return handler.handle(envelope, position);
        }
    }

    public static final class Builder {
        private final Map<String, Route> routes = new HashMap<>();
        private Route anyOther;

        public <E extends DomainEvent> Builder on(Class<E> type, EventHandler<E> handler) {
            String eventType = EventCatalog.entryOf(type).eventType();
            if (routes.putIfAbsent(eventType, new Typed<>(type, handler)) != null) {
                throw new IllegalArgumentException("two handlers for " + eventType);
            }
            return this;
        }

        /** The handler of every event type that has no handler of its own, also types the catalogue does not know. */
        public Builder onAnyOther(AnyEventHandler handler) {
            if (anyOther != null) {
                throw new IllegalArgumentException("two handlers for any other event");
            }
            anyOther = new Any(handler);
            return this;
        }

        public EventHandlers build() {
            return new EventHandlers(routes, anyOther);
        }
    }
}
