package dev.umbra.audit.ingest;

import dev.umbra.platform.inbox.EventHandlers;
import dev.umbra.platform.inbox.Inbox;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Every event of every topic (channel {@code all-events}, subscribed by pattern: a new aggregate's
 * topic is read with no change here, the {@code .dlq} topics never), of any event type, into the audit log.
 */
@ApplicationScoped
public class AllEventsConsumer {

    static final String CONSUMER = "audit";

    private final Inbox inbox;
    private final EventHandlers handlers;

    public AllEventsConsumer(Inbox inbox, AuditLog log) {
        this.inbox = inbox;
        this.handlers = EventHandlers.builder().onAnyOther(log::recordAll).build();
    }

    @Incoming("all-events")
    public Uni<Void> consume(Message<List<byte[]>> batch) {
        return inbox.consume(CONSUMER, batch, handlers);
    }
}
