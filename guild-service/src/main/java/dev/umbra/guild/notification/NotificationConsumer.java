package dev.umbra.guild.notification;

import dev.umbra.events.billing.PaymentFailed;
import dev.umbra.events.billing.PaymentFailedFinal;
import dev.umbra.events.billing.PlanDowngraded;
import dev.umbra.events.billing.PlanUpgraded;
import dev.umbra.events.billing.SubscriptionCanceled;
import dev.umbra.events.billing.SubscriptionResumed;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.licensing.LicenseDowngraded;
import dev.umbra.events.licensing.LicenseSuspended;
import dev.umbra.events.recovery.AntiNukeActioned;
import dev.umbra.events.recovery.AntiNukeTriggered;
import dev.umbra.events.recovery.RestoreCompleted;
import dev.umbra.events.recovery.RestoreFailed;
import dev.umbra.events.recovery.RestoreStarted;
import dev.umbra.platform.inbox.EventChannels;
import dev.umbra.platform.inbox.EventHandlers;
import dev.umbra.platform.inbox.Inbox;
import dev.umbra.platform.readmodel.AggregateGuilds;
import dev.umbra.platform.readmodel.GuildPlans;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * The "Notification" subscriber of the event catalogue: every event a guild's owner must hear about. It
 * feeds the platform's read models of each aggregate's guild (whose owner a later event's message goes
 * to) and of each guild's plan (web-join is plan-gated).
 */
@ApplicationScoped
public class NotificationConsumer {

    static final String CONSUMER = "guild-notifications";

    private final Inbox inbox;
    private final EventHandlers handlers;

    public NotificationConsumer(Inbox inbox, Notifications notifications, AggregateGuilds guilds, GuildPlans plans) {
        this.inbox = inbox;
        this.handlers = EventHandlers.builder()
                .feeding(guilds)
                .feeding(plans)
                .on(SubscriptionStarted.class, (event, envelope) -> notifications.enqueue(event.guildId(), envelope))
                .on(PaymentFailed.class, notifications::notifyOwnerOf)
                .on(PaymentFailedFinal.class, notifications::notifyOwnerOf)
                .on(SubscriptionCanceled.class, notifications::notifyOwnerOf)
                .on(SubscriptionResumed.class, notifications::notifyOwnerOf)
                .on(PlanUpgraded.class, notifications::notifyOwnerOf)
                .on(PlanDowngraded.class, notifications::notifyOwnerOf)
                .on(LicenseDowngraded.class, notifications::notifyOwnerOf)
                .on(LicenseSuspended.class, notifications::notifyOwnerOf)
                .on(RestoreStarted.class, (event, envelope) -> notifications.enqueue(event.guildId(), envelope))
                .on(RestoreCompleted.class, notifications::notifyOwnerOf)
                .on(RestoreFailed.class, notifications::notifyOwnerOf)
                .on(AntiNukeTriggered.class, (event, envelope) -> notifications.enqueue(event.guildId(), envelope))
                .on(AntiNukeActioned.class, (event, envelope) -> notifications.enqueue(event.guildId(), envelope))
                .build();
    }

    @Incoming(EventChannels.SUBSCRIPTION)
    @Incoming(EventChannels.LICENSE)
    @Incoming(EventChannels.RESTORE_JOB)
    @Incoming(EventChannels.ANTI_NUKE)
    public Uni<Void> consume(Message<List<byte[]>> batch) {
        return inbox.consume(CONSUMER, batch, handlers);
    }
}
