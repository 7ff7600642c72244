package dev.umbra.billing.subscription;

import dev.umbra.platform.outbox.OutboxWriter;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;

/** Stores what a rule decided and publishes its events, in the caller's transaction. */
@ApplicationScoped
public class SubscriptionChanges {

    private final OutboxWriter outbox;
    private final Clock clock;

    public SubscriptionChanges(OutboxWriter outbox, Clock clock) {
        this.outbox = outbox;
        this.clock = clock;
    }

    /** {@code row} takes {@code transition}'s result and its events go to the outbox; an unchanged one writes nothing. */
    public Uni<Subscription> apply(StoredSubscription row, Transition transition) {
        if (!transition.changed()) {
            return Uni.createFrom().item(transition.after());
        }
        row.copy(transition.after(), clock.instant());
        Uni<?> published = transition.events().isEmpty() ? Uni.createFrom().voidItem() : outbox.publishAll(transition.events());
        return published.replaceWith(transition.after());
    }
}
