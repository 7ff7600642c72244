package dev.umbra.licensing.license;

import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.events.guild.GuildDeleted;
import dev.umbra.events.guild.GuildOwnerChanged;
import dev.umbra.platform.inbox.EventChannels;
import dev.umbra.platform.inbox.EventHandlers;
import dev.umbra.platform.inbox.Inbox;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/** Guild lifecycle events (topic umbra.guild) as they concern licenses. */
@ApplicationScoped
public class GuildEventsConsumer {

    static final String CONSUMER = "licensing";

    private final Inbox inbox;
    private final EventHandlers handlers;

    public GuildEventsConsumer(Inbox inbox, LicenseService licenses, GuildOwners owners) {
        this.inbox = inbox;
        this.handlers = EventHandlers.builder()
                .onBatch(BotInstalled.class, installs -> licenses.onBotsInstalled(installs).chain(() -> owners.onBotsInstalled(installs)))
                .on(GuildOwnerChanged.class, owners::onOwnerChanged)
                .on(BotKicked.class, licenses::onBotKicked)
                .on(GuildDeleted.class, licenses::onGuildDeleted)
                .build();
    }

    @Incoming(EventChannels.GUILD)
    public Uni<Void> consume(Message<List<byte[]>> batch) {
        return inbox.consume(CONSUMER, batch, handlers);
    }
}
