package dev.umbra.events;

/** A payload of the event catalogue. Implementations are immutable records annotated with {@link EventContract}. */
public interface DomainEvent {
    /** The id of the aggregate the event belongs to: the Kafka key, so one aggregate's events keep their order. */
    String aggregateId();
}
