package dev.umbra.guild.notification;

import dev.umbra.guild.lifecycle.GuildStatus;
import dev.umbra.platform.storage.Statements;
import dev.umbra.platform.storage.StorageFaults;
import dev.umbra.platform.workqueue.Outcome;
import dev.umbra.platform.workqueue.WorkHandler;
import dev.umbra.platform.workqueue.WorkItem;
import dev.umbra.platform.workqueue.WorkQueues;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.WebApplicationException;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.jboss.logging.Logger;

/**
 * Delivers the {@value #QUEUE} work queue's items as Discord direct messages (the platform work queue
 * claims, leases, retries and dead-letters them). What Discord's answer means for an item:
 * refused by the open circuit → not tried, no attempt; 5xx, timeout, no connection → an outage,
 * retried without limit; 429 → the same, not before its {@code Retry-After}; any other 4xx → the
 * item's own failure, dead after max-attempts; no template, unreadable parameters or a guild never
 * seen → dead at once; a guild deleted since → done, not sent (nobody to tell, as expected).
 */
@ApplicationScoped
public class NotificationDispatcher implements WorkHandler {

    private static final Logger LOG = Logger.getLogger(NotificationDispatcher.class);

    public static final String QUEUE = "discord-dm";
    /**
     * How long Discord remembers a nonce ("the past few minutes"), with a margin: a try after an uncertain one
     * (a timeout, a 5xx) is deduplicated only within it, so the queue's backoff must stay shorter.
     */
    static final Duration NONCE_WINDOW = Duration.ofMinutes(2);

    private final Pool pool;
    private final DiscordMessenger messenger;
    private final Clock clock;

    public NotificationDispatcher(Pool pool, DiscordMessenger messenger, Clock clock) {
        this.pool = pool;
        this.messenger = messenger;
        this.clock = clock;
    }

    void retriesStayWithinTheNonceWindow(@Observes StartupEvent started, WorkQueues queues) {
        checkRetriesStayWithinTheNonceWindow(queues.queue(QUEUE).settings().maxBackoff());
    }

    static void checkRetriesStayWithinTheNonceWindow(Duration maxBackoff) {
        if (maxBackoff.compareTo(NONCE_WINDOW) > 0) {
            throw new IllegalStateException("umbra.work-queue." + QUEUE + ".max-backoff is " + maxBackoff + ": a retry after an uncertain "
                    + "send that comes later than Discord's nonce window (" + NONCE_WINDOW + ") could post the message twice");
        }
    }

    @Override
    public String queue() {
        return QUEUE;
    }

    @Override
    public boolean ready() {
        return messenger.available();
    }

    @Override
    public Uni<Outcome> handle(WorkItem item) {
        NotificationPayload message = NotificationPayload.of(item.payload());
        String content;
        try {
            content = NotificationTemplates.render(message.eventType(), message.params());
        } catch (IllegalArgumentException unrenderable) {
            return Uni.createFrom().item(Outcome.poison(unrenderable.getMessage()));
        }
        return Statements.execute(pool, "select owner_id, status from guild where guild_id = $1", Tuple.of(message.guildId()))
                .onItemOrFailure().transformToUni((rows, unread) -> {
                    if (unread != null) {
                        String reason = "the guild's owner could not be read, Discord not called: " + unread;
                        return Uni.createFrom().item(StorageFaults.isTransient(unread) ? Outcome.unavailable(reason, null) : Outcome.failed(reason));
                    }
                    if (rows.size() == 0) {
                        return Uni.createFrom().item(Outcome.poison("no owner to tell: the guild " + message.guildId() + " is unknown"));
                    }
                    Row guild = rows.iterator().next();
                    if (GuildStatus.DELETED.name().equals(guild.getString("status"))) {
                        // the news of a deleted guild (its subscription canceled with it, say): nobody to tell, as it should be
                        LOG.infof("%s of guild %s not sent: the guild was deleted", message.eventType(), message.guildId());
                        return Uni.createFrom().item(Outcome.done());
                    }
                    String recipient = guild.getString("owner_id");
                    if (recipient == null) {
                        // a guild known only by a kick that overtook its install: nobody installed it here, nobody owns it yet
                        return Uni.createFrom().item(Outcome.poison("no owner to tell: nobody owns the guild " + message.guildId() + " here yet"));
                    }
                    return messenger.send(recipient, content, UUID.fromString(item.key()))
                            .map(discordMessageId -> Outcome.done())
                            .onFailure().recoverWithItem(this::outcomeOf);
                });
    }

    Outcome outcomeOf(Throwable error) {
        if (error instanceof CircuitBreakerOpenException) {
            return Outcome.deferred("Discord's circuit is open: not called", null);
        }
        if (error instanceof WebApplicationException answered && answered.getResponse() != null) {
            int status = answered.getResponse().getStatus();
            if (status == 429) {
                return Outcome.unavailable("Discord rate-limited the call (429)",
                        retryAfter(answered.getResponse().getHeaderString("Retry-After")));
            }
            if (status >= 500) {
                return Outcome.unavailable("Discord answered " + status, null);
            }
            if (status == 401) {
                // the bot's token (rotated, revoked) and not this message: every message waits for it, none is dead-lettered
                return Outcome.unavailable("Discord refused the bot's token (401)", null);
            }
            return Outcome.failed("Discord refused the message: " + status);
        }
        return Outcome.unavailable(error.toString(), null);
    }

    /** Discord's {@code Retry-After} is in seconds, possibly with a fraction; without one, the backoff decides. */
    private Instant retryAfter(String header) {
        if (header == null || header.isBlank()) {
            return null;
        }
        try {
            long millis = new BigDecimal(header.trim()).movePointRight(3).longValue();
            return clock.instant().plus(Duration.ofMillis(Math.max(0, millis)));
        } catch (NumberFormatException notSeconds) {
            return null;
        }
    }
}
