package dev.umbra.platform.inbox;

import dev.umbra.platform.readmodel.AggregateGuilds;
import dev.umbra.platform.readmodel.GuildPlans;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/** A consumer that keeps the platform's read models and nothing else, as a service declares them. */
@ApplicationScoped
public class ReadModelConsumer {

    static final String NAME = "inbox-test-read-models";

    private final Inbox inbox;
    private final EventHandlers handlers;

    public ReadModelConsumer(Inbox inbox, AggregateGuilds guilds, GuildPlans plans) {
        this.inbox = inbox;
        this.handlers = EventHandlers.builder().feeding(guilds).feeding(plans).build();
    }

    /** Two channels by the platform's rule (EventChannels), both into one method. */
    @Incoming(EventChannels.LICENSE)
    @Incoming(EventChannels.SUBSCRIPTION)
    public Uni<Void> consume(Message<List<byte[]>> batch) {
        return inbox.consume(NAME, batch, handlers);
    }
}
