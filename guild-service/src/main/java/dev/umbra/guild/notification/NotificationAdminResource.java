package dev.umbra.guild.notification;

import com.fasterxml.jackson.databind.JsonNode;
import dev.umbra.platform.inbox.InboxConfig;
import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.web.ProblemException;
import dev.umbra.platform.web.Roles;
import dev.umbra.platform.workqueue.WorkQueue;
import dev.umbra.platform.workqueue.WorkQueues;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** For operators: the messages that could not be delivered, and a way to send one again. */
@Path("/admin/notifications")
@RolesAllowed(Roles.ADMIN)
@DatabaseGuard
public class NotificationAdminResource {

    public record DeadLetterView(String id, String eventType, String aggregateType, String aggregateId, int attempts, String reason,
            Instant diedAt, Instant createdAt) {

        static DeadLetterView of(WorkQueue.DeadLetter dead) {
            NotificationPayload message = NotificationPayload.of(dead.payload());
            return new DeadLetterView(dead.key(), message.eventType(), message.aggregateType(), message.aggregateId(), dead.attempts(),
                    dead.reason(), dead.diedAt(), dead.createdAt());
        }
    }

    public record RetryView(String id, String status, int attempts) {
    }

    private final WorkQueue queue;
    private final Duration keptFor;

    public NotificationAdminResource(WorkQueues queues, InboxConfig inbox) {
        this.queue = queues.queue(NotificationDispatcher.QUEUE);
        // done items go with the inbox's claims (ProcessedEventTrimmer): a sent notification is forgotten after the horizon
        this.keptFor = inbox.dedupe().horizon();
    }

    /** The oldest 100 dead letters. */
    @GET
    @Path("/dead-letters")
    public Uni<List<DeadLetterView>> deadLetters() {
        return queue.deadLetters(100).map(dead -> dead.stream().map(DeadLetterView::of).toList());
    }

    /** Puts a dead letter back in line with a fresh set of attempts; 409 for a message that is not dead. */
    @POST
    @Path("/{id}/retry")
    public Uni<RetryView> retry(@PathParam("id") @org.hibernate.validator.constraints.UUID String id) {
        return queue.revive(id).chain(revived -> revived
                ? Uni.createFrom().item(new RetryView(id, "pending", 0))
                : queue.status(id).chain(status -> Uni.createFrom().failure(status == null
                        ? ProblemException.notFound("no notification " + id + " (a sent one is kept for " + keptFor.toDays()
                                + " days, a dead one until it is retried)")
                        : ProblemException.conflict("notification " + id + " is " + status + ", not a dead letter"))));
    }
}
