package dev.umbra.billing.subscription;

import dev.umbra.events.DomainEvent;
import java.util.List;

/**
 * The outcome of one trigger: the subscription after it and the events to publish with it, in order.
 * The service layer persists {@code after} and writes {@code events} to the outbox, nothing more.
 */
public record Transition(Subscription before, Subscription after, List<DomainEvent> events) {

    public Transition {
        events = List.copyOf(events);
    }

    static Transition none(Subscription unchanged) {
        return new Transition(unchanged, unchanged, List.of());
    }

    static Transition of(Subscription before, Trigger trigger, Subscription after, DomainEvent... events) {
        if (!TransitionTable.allows(trigger, before.status(), after.status())) {
            throw new IllegalStateException("the rules moved " + before.status() + " to " + after.status() + " on " + trigger
                    + ", which the transition table does not list");
        }
        return new Transition(before, after, List.of(events));
    }

    /** False when the trigger had already been applied: nothing to store, nothing to publish. */
    public boolean changed() {
        return !before.equals(after);
    }
}
