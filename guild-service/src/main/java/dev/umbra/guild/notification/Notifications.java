package dev.umbra.guild.notification;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventEnvelope;
import dev.umbra.platform.inbox.RejectedEventException;
import dev.umbra.platform.readmodel.AggregateGuilds;
import dev.umbra.platform.workqueue.WorkQueue;
import dev.umbra.platform.workqueue.WorkQueues;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;

/**
 * Turns events a guild's owner must hear about into items of the {@value NotificationDispatcher#QUEUE}
 * work queue, inside the inbox transaction: the item commits together with the event's dedupe row and
 * is keyed by the event's id, so one event is one message. It keeps only the payload fields its template reads.
 */
@ApplicationScoped
public class Notifications {

    private final Clock clock;
    private final WorkQueue queue;
    private final AggregateGuilds guilds;

    public Notifications(Clock clock, WorkQueues queues, AggregateGuilds guilds) {
        this.clock = clock;
        this.queue = queues.queue(NotificationDispatcher.QUEUE);
        this.guilds = guilds;
    }

    /** An event about an aggregate of another service whose guild an earlier event named: its guild's owner is told. */
    <E extends DomainEvent> Uni<Void> notifyOwnerOf(E event, EventEnvelope envelope) {
        return guilds.guildOf(envelope.aggregateType(), envelope.aggregateId()).chain(guildId -> {
            if (guildId.isEmpty()) {
                return Uni.createFrom().failure(new RejectedEventException("no guild known for " + envelope.aggregateType() + " "
                        + envelope.aggregateId() + ": the event that introduced it was never applied"));
            }
            return enqueue(guildId.get(), envelope);
        });
    }

    Uni<Void> enqueue(String guildId, EventEnvelope envelope) {
        NotificationPayload message = new NotificationPayload(envelope.eventType(), envelope.aggregateType(), envelope.aggregateId(),
                guildId, NotificationTemplates.paramsOf(envelope.eventType(), envelope.payload()));
        return queue.enqueue(envelope.eventId().toString(), message.toJson(), clock.instant());
    }
}
