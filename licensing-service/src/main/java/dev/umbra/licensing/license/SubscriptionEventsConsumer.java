package dev.umbra.licensing.license;

import dev.umbra.events.billing.PaymentFailedFinal;
import dev.umbra.events.billing.PaymentSucceeded;
import dev.umbra.events.billing.PlanDowngraded;
import dev.umbra.events.billing.PlanUpgraded;
import dev.umbra.events.billing.SubscriptionCanceled;
import dev.umbra.events.billing.SubscriptionResumed;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.billing.SubscriptionSuspended;
import dev.umbra.platform.inbox.EventChannels;
import dev.umbra.platform.inbox.EventHandlers;
import dev.umbra.platform.inbox.Inbox;
import dev.umbra.platform.readmodel.AggregateGuilds;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Billing's subscription events (topic umbra.subscription) as they concern licenses. SubscriptionStarted
 * teaches the platform's read model {@link AggregateGuilds} the subscription's guild, which the later
 * events of the subscription are applied to.
 */
@ApplicationScoped
public class SubscriptionEventsConsumer {

    private final Inbox inbox;
    private final EventHandlers handlers;

    public SubscriptionEventsConsumer(Inbox inbox, LicenseService licenses, AggregateGuilds guilds) {
        this.inbox = inbox;
        this.handlers = EventHandlers.builder()
                .feeding(guilds)
                .on(SubscriptionStarted.class, licenses::onSubscriptionStarted)
                .on(PaymentSucceeded.class, licenses::onPaymentSucceeded)
                .on(PaymentFailedFinal.class, licenses::onPaymentFailedFinal)
                .on(SubscriptionCanceled.class, licenses::onSubscriptionCanceled)
                .on(SubscriptionSuspended.class, licenses::onSubscriptionSuspended)
                .on(SubscriptionResumed.class, licenses::onSubscriptionResumed)
                .on(PlanUpgraded.class, licenses::onPlanUpgraded)
                .on(PlanDowngraded.class, licenses::onPlanDowngraded)
                .build();
    }

    @Incoming(EventChannels.SUBSCRIPTION)
    public Uni<Void> consume(Message<List<byte[]>> batch) {
        return inbox.consume(GuildEventsConsumer.CONSUMER, batch, handlers);
    }
}
