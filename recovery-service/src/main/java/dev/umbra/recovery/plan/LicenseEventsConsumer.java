package dev.umbra.recovery.plan;

import dev.umbra.events.licensing.LicenseCanceled;
import dev.umbra.events.licensing.LicenseDowngraded;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.events.licensing.LicenseSuspended;
import dev.umbra.platform.inbox.EventHandlers;
import dev.umbra.platform.inbox.Inbox;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/** Licensing's events feed the plan read model. */
@ApplicationScoped
public class LicenseEventsConsumer {

    static final String CONSUMER = "recovery-plans";

    private final Inbox inbox;
    private final EventHandlers handlers;

    public LicenseEventsConsumer(Inbox inbox, GuildPlans plans) {
        this.inbox = inbox;
        this.handlers = EventHandlers.builder()
                .on(LicenseGranted.class, plans::onGranted)
                .on(LicenseDowngraded.class, plans::onDowngraded)
                .on(LicenseSuspended.class, plans::onSuspended)
                .on(LicenseCanceled.class, plans::onCanceled)
                .build();
    }

    @Incoming("license-events")
    public Uni<Void> licenses(Message<List<byte[]>> batch) {
        return inbox.consume(CONSUMER, batch, handlers);
    }
}
