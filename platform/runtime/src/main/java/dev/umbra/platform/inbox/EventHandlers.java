package dev.umbra.platform.inbox;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventCatalog;
import dev.umbra.events.EventEnvelope;
import dev.umbra.platform.trace.TraceContext;
import io.smallrye.mutiny.Uni;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which handler applies which event type. Event types without a handler go to the handler of any event
 * if there is one ({@link Builder#onAnyOther}), and are skipped otherwise. The read models the consumer
 * feeds ({@link Builder#feeding}) learn from an event before its handler runs; an event only they take
 * is applied for them alone. A type registered with {@link Builder#onBatch}, and the handler of any
 * event, are applied a run of consecutive records at a time.
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
    interface Route {
        /** The event the handlers take; an {@link dev.umbra.events.EventDecodingException} if the payload does not fit. */
        Object decode(EventEnvelope envelope);

        Uni<Void> apply(Object event, EventEnvelope envelope, AnyEventHandler.RecordPosition position);

        /** True if consecutive events of this route are applied together ({@link #applyAll}). */
        default boolean together() {
            return false;
        }

        /** Applies consecutive events of this route in one go, in their order. */
        default Uni<Void> applyAll(List<Arrival> events) {
            throw new UnsupportedOperationException("events of this route are applied one at a time");
        }
    }

    /** A claimed record of a run: its decoded event, its envelope, where it was read, and the traceparent of its span. */
    record Arrival(Object event, EventEnvelope envelope, AnyEventHandler.RecordPosition position, String traceContext) {
    }

    /**
     * The handlers of one event type, in the order they run: the read models' handlers of every event,
     * then the typed handlers (the read models' first, the consumer's last).
     */
    private record Chain(Class<? extends DomainEvent> type, List<ReadModel.EnvelopeHandler> every,
            List<EventHandler<DomainEvent>> typed) implements Route {

        @Override
        public Object decode(EventEnvelope envelope) {
            return type == null ? envelope : envelope.payloadAs(type);
        }

        @Override
        public Uni<Void> apply(Object event, EventEnvelope envelope, AnyEventHandler.RecordPosition position) {
            Uni<Void> chain = Uni.createFrom().voidItem();
            for (ReadModel.EnvelopeHandler handler : every) {
                chain = chain.chain(() -> handler.handle(envelope));
            }
            for (EventHandler<DomainEvent> handler : typed) {
                chain = chain.chain(() -> handler.handle((DomainEvent) event, envelope));
            }
            return chain;
        }
    }

    /** The handler of an event type handled in runs. */
    private record Together(Class<? extends DomainEvent> type, BatchEventHandler<DomainEvent> handler) implements Route {

        @Override
        public Object decode(EventEnvelope envelope) {
            return envelope.payloadAs(type);
        }

        @Override
        public Uni<Void> apply(Object event, EventEnvelope envelope, AnyEventHandler.RecordPosition position) {
            return handler.handle(List.of(new Delivered<>((DomainEvent) event, envelope, TraceContext.current())));
        }

        @Override
        public boolean together() {
            return true;
        }

        @Override
        public Uni<Void> applyAll(List<Arrival> events) {
            return handler.handle(events.stream()
                    .map(arrival -> new Delivered<>((DomainEvent) arrival.event(), arrival.envelope(), arrival.traceContext())).toList());
        }
    }

    /** The handler of any other event, applied to runs of them. */
    private record AnyOther(AnyEventHandler handler) implements Route {

        @Override
        public Object decode(EventEnvelope envelope) {
            return envelope;
        }

        @Override
        public Uni<Void> apply(Object event, EventEnvelope envelope, AnyEventHandler.RecordPosition position) {
            return handler.handle(List.of(new AnyEventHandler.Received(envelope, position)));
        }

        @Override
        public boolean together() {
            return true;
        }

        @Override
        public Uni<Void> applyAll(List<Arrival> events) {
            return handler.handle(events.stream().map(arrival -> new AnyEventHandler.Received(arrival.envelope(), arrival.position())).toList());
        }
    }

    public static final class Builder {
        private final Map<String, Class<? extends DomainEvent>> types = new HashMap<>();
        private final Map<String, EventHandler<DomainEvent>> own = new HashMap<>();
        private final Map<String, BatchEventHandler<DomainEvent>> together = new HashMap<>();
        private final Map<String, List<EventHandler<DomainEvent>>> fed = new HashMap<>();
        private final List<ReadModel.EnvelopeHandler> fedEvery = new ArrayList<>();
        private final Set<ReadModel> readModels = new LinkedHashSet<>();
        private AnyEventHandler anyOther;

        public <E extends DomainEvent> Builder on(Class<E> type, EventHandler<E> handler) {
            String eventType = typeOf(type);
            if (together.containsKey(eventType) || own.putIfAbsent(eventType, widened(type, handler)) != null) {
                throw new IllegalArgumentException("two handlers for " + eventType);
            }
            return this;
        }

        /**
         * The handler of the type's consecutive events of a batch, applied together ({@link BatchEventHandler});
         * not for a type that feeds a read model of the consumer.
         */
        @SuppressWarnings("unchecked")
        public <E extends DomainEvent> Builder onBatch(Class<E> type, BatchEventHandler<E> handler) {
            String eventType = typeOf(type);
            BatchEventHandler<DomainEvent> widened = events -> handler.handle((List<Delivered<E>>) (List<?>) events);
            if (own.containsKey(eventType) || together.putIfAbsent(eventType, widened) != null) {
                throw new IllegalArgumentException("two handlers for " + eventType);
            }
            return this;
        }

        /**
         * The handler of every event type that has no handler of its own, also types the catalogue does not
         * know, applied a run at a time; not for a consumer that feeds a read model (it would learn from a
         * run's events before the handler met them one by one).
         */
        public Builder onAnyOther(AnyEventHandler handler) {
            if (anyOther != null) {
                throw new IllegalArgumentException("two handlers for any other event");
            }
            anyOther = handler;
            return this;
        }

        /** Keeps the read model from the consumer's events; one consumer per read model and topic is enough. */
        public Builder feeding(ReadModel readModel) {
            if (!readModels.add(readModel)) {
                throw new IllegalArgumentException("the consumer feeds " + readModel + " already");
            }
            readModel.learnFrom(new ReadModel.Feed() {
                @Override
                public <E extends DomainEvent> ReadModel.Feed on(Class<E> type, EventHandler<E> handler) {
                    fed.computeIfAbsent(typeOf(type), ignored -> new ArrayList<>()).add(widened(type, handler));
                    return this;
                }

                @Override
                public ReadModel.Feed onEvery(ReadModel.EnvelopeHandler handler) {
                    fedEvery.add(handler);
                    return this;
                }
            });
            return this;
        }

        public EventHandlers build() {
            Map<String, Route> routes = new HashMap<>();
            Set<String> handled = new LinkedHashSet<>(own.keySet());
            handled.addAll(fed.keySet());
            handled.removeAll(together.keySet());
            together.forEach((eventType, handler) -> {
                // a read model learning from each event of a run before the handler ran would show the handler
                // the state after the whole run, not the one each event met
                if (!fedEvery.isEmpty() || fed.containsKey(eventType)) {
                    throw new IllegalArgumentException(eventType + " feeds a read model: its events are applied one at a time");
                }
                routes.put(eventType, new Together(types.get(eventType), handler));
            });
            if (anyOther != null && !readModels.isEmpty()) {
                throw new IllegalArgumentException("the handler of any other event is applied to runs: it cannot go with a fed read model");
            }
            for (String eventType : handled) {
                List<EventHandler<DomainEvent>> typed = new ArrayList<>(fed.getOrDefault(eventType, List.of()));
                if (own.containsKey(eventType)) {
                    typed.add(own.get(eventType));
                }
                routes.put(eventType, new Chain(types.get(eventType), List.copyOf(fedEvery), List.copyOf(typed)));
            }
            Route other = anyOther != null ? new AnyOther(anyOther) : fedEvery.isEmpty() ? null : new Chain(null, List.copyOf(fedEvery), List.of());
            return new EventHandlers(routes, other);
        }

        private String typeOf(Class<? extends DomainEvent> type) {
            String eventType = EventCatalog.entryOf(type).eventType();
            types.put(eventType, type);
            return eventType;
        }

        private static <E extends DomainEvent> EventHandler<DomainEvent> widened(Class<E> type, EventHandler<E> handler) {
            return (event, envelope) -> handler.handle(type.cast(event), envelope);
        }
    }
}
