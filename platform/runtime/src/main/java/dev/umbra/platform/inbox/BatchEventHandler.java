package dev.umbra.platform.inbox;

import dev.umbra.events.DomainEvent;
import io.smallrye.mutiny.Uni;
import java.util.List;

/**
 * Applies consecutive records' events of one type together, inside the inbox transaction, so that a
 * set-based handler reads and writes a whole run with a few statements instead of a few per event (a
 * backlog drains at the speed of its statements). The outcome must be the one of applying the events
 * one after the other in the list's order: a run may hold several events of one aggregate. A run that
 * fails is applied again one event at a time, so that a failure is the failing event's alone.
 *
 * <p>No span is current while a run is applied: the events a handler publishes in answer go through
 * {@link dev.umbra.platform.outbox.OutboxWriter#publishInOrder} with their cause's
 * {@link Delivered#traceContext()}, so that each trace goes on.
 */
@FunctionalInterface
public interface BatchEventHandler<E extends DomainEvent> {

    Uni<Void> handle(List<Delivered<E>> events);
}
