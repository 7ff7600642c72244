package dev.umbra.platform.inbox;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventEnvelope;

/**
 * An event a {@link BatchEventHandler} applies, with the {@code traceparent} of the span that applies it:
 * the events published in answer carry it, so the trace goes on to their consumers.
 */
public record Delivered<E extends DomainEvent>(E event, EventEnvelope envelope, String traceContext) {
}
