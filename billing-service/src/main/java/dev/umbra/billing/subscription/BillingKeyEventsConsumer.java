package dev.umbra.billing.subscription;

import dev.umbra.events.billing.BillingKeyDeleted;
import dev.umbra.platform.inbox.EventChannels;
import dev.umbra.platform.inbox.EventHandlers;
import dev.umbra.platform.inbox.Inbox;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Billing's own BillingKeyDeleted (topic umbra.billing_key): the subscriptions the key paid for are
 * suspended. Consumed rather than done in the delete's transaction so that the key's deletion stays one
 * small transaction and the suspension is applied once per subscription however often it is delivered.
 */
@ApplicationScoped
public class BillingKeyEventsConsumer {

    private final Inbox inbox;
    private final EventHandlers handlers;

    public BillingKeyEventsConsumer(Inbox inbox, SubscriptionService subscriptions) {
        this.inbox = inbox;
        this.handlers = EventHandlers.builder()
                .on(BillingKeyDeleted.class, subscriptions::onBillingKeyDeleted)
                .build();
    }

    @Incoming(EventChannels.BILLING_KEY)
    public Uni<Void> consume(Message<List<byte[]>> batch) {
        return inbox.consume(GuildEventsConsumer.CONSUMER, batch, handlers);
    }
}
