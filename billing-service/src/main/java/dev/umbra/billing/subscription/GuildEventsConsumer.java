package dev.umbra.billing.subscription;

import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.events.guild.GuildDeleted;
import dev.umbra.platform.inbox.EventChannels;
import dev.umbra.platform.inbox.EventHandlers;
import dev.umbra.platform.inbox.Inbox;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/** Guild lifecycle events (topic umbra.guild) as they concern subscriptions: a kicked bot suspends, the bot back resumes, a deleted guild cancels. */
@ApplicationScoped
public class GuildEventsConsumer {

    static final String CONSUMER = "billing";

    private final Inbox inbox;
    private final EventHandlers handlers;

    public GuildEventsConsumer(Inbox inbox, SubscriptionService subscriptions) {
        this.inbox = inbox;
        this.handlers = EventHandlers.builder()
                .on(BotInstalled.class, subscriptions::onBotInstalled)
                .on(BotKicked.class, subscriptions::onBotKicked)
                .on(GuildDeleted.class, subscriptions::onGuildDeleted)
                .build();
    }

    @Incoming(EventChannels.GUILD)
    public Uni<Void> consume(Message<List<byte[]>> batch) {
        return inbox.consume(CONSUMER, batch, handlers);
    }
}
