package dev.umbra.guild.notification;

import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.web.ProblemException;
import dev.umbra.platform.web.Roles;
import io.quarkus.hibernate.reactive.panache.common.WithSession;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.quarkus.panache.common.Sort;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** For operators: the messages that could not be delivered, and a way to send one again. */
@Path("/admin/notifications")
@RolesAllowed(Roles.ADMIN)
@DatabaseGuard
public class NotificationAdminResource {

    public record MessageView(UUID outboxId, String eventType, String aggregateType, String aggregateId, String status,
            int attempts, int maxAttempts, String lastError, Instant nextAttemptAt, Instant createdAt) {

        static MessageView of(NotificationMessage message) {
            return new MessageView(message.outboxId, message.eventType, message.aggregateType, message.aggregateId, message.status,
                    message.attempts, message.maxAttempts, message.lastError, message.nextAttemptAt, message.createdAt);
        }
    }

    private final Clock clock;

    public NotificationAdminResource(Clock clock) {
        this.clock = clock;
    }

    /** The oldest 100 dead letters. */
    @GET
    @Path("/dead-letters")
    @WithSession
    public Uni<List<MessageView>> deadLetters() {
        return NotificationMessage.<NotificationMessage>find("status", Sort.by("createdAt"), NotificationStatus.DEAD_LETTER.column())
                .page(0, 100).list()
                .map(messages -> messages.stream().map(MessageView::of).toList());
    }

    /** Puts a dead letter back in line with a fresh set of attempts; 409 for a message that is not dead. */
    @POST
    @Path("/{outboxId}/retry")
    @WithTransaction
    public Uni<MessageView> retry(@PathParam("outboxId") @org.hibernate.validator.constraints.UUID String outboxId) {
        return NotificationMessage.<NotificationMessage>findById(UUID.fromString(outboxId)).chain(message -> {
            if (message == null) {
                return Uni.createFrom().failure(ProblemException.notFound("no notification " + outboxId));
            }
            if (!NotificationStatus.DEAD_LETTER.column().equals(message.status)) {
                return Uni.createFrom().failure(ProblemException.conflict("notification " + outboxId + " is " + message.status
                        + ", not a dead letter"));
            }
            message.status = NotificationStatus.PENDING.column();
            message.attempts = 0;
            message.nextAttemptAt = clock.instant();
            return Uni.createFrom().item(MessageView.of(message));
        });
    }
}
