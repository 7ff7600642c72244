package dev.umbra.recovery.plan;

import dev.umbra.platform.inbox.EventChannels;
import dev.umbra.platform.inbox.EventHandlers;
import dev.umbra.platform.inbox.Inbox;
import dev.umbra.platform.readmodel.GuildPlans;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/** Licensing's events feed the platform's plan read model, which gates snapshots, restores and anti-nuke. */
@ApplicationScoped
public class LicenseEventsConsumer {

    static final String CONSUMER = "recovery-plans";

    private final Inbox inbox;
    private final EventHandlers handlers;

    public LicenseEventsConsumer(Inbox inbox, GuildPlans plans) {
        this.inbox = inbox;
        this.handlers = EventHandlers.builder().feeding(plans).build();
    }

    @Incoming(EventChannels.LICENSE)
    public Uni<Void> licenses(Message<List<byte[]>> batch) {
        return inbox.consume(CONSUMER, batch, handlers);
    }
}
