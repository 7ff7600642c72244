package dev.umbra.guild.notification;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Delivers integration-outbox rows to Discord. A round claims due rows in one short transaction
 * (FOR UPDATE SKIP LOCKED, so replicas never take the same row at the same time; a claim is a lease,
 * taken over if its holder dies), sends them outside any transaction, then records each outcome:
 * completed, failed with exponential backoff and jitter, or dead_letter after the last attempt.
 */
@ApplicationScoped
public class NotificationDispatcher {

    private static final Logger LOG = Logger.getLogger(NotificationDispatcher.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_ERROR_LENGTH = 500;
    private static final String CLAIM = """
            with due as (
                select outbox_id from integration_outbox
                where target_provider = 'discord'
                  and ((status in ('pending', 'failed') and next_attempt_at <= now())
                       or (status = 'processing' and locked_until < now()))
                order by next_attempt_at
                limit $1
                for update skip locked)
            update integration_outbox o
            set status = 'processing', attempts = o.attempts + 1, locked_until = now() + make_interval(secs => $2)
            from due where o.outbox_id = due.outbox_id
            returning o.outbox_id, o.event_type, o.payload, o.attempts, o.max_attempts""";
    private static final String COMPLETED = """
            update integration_outbox set status = 'completed', completed_at = now(), locked_until = null, last_error = null
            where outbox_id = $1 and status = 'processing'""";
    private static final String FAILED = """
            update integration_outbox
            set status = case when attempts >= max_attempts then 'dead_letter' else 'failed' end,
                next_attempt_at = now() + make_interval(secs => $2), locked_until = null, last_error = $3
            where outbox_id = $1 and status = 'processing'
            returning status""";
    private static final String DEAD = """
            update integration_outbox set status = 'dead_letter', locked_until = null, last_error = $2
            where outbox_id = $1 and status = 'processing'""";
    private static final String BACKLOG = """
            select status, count(*) as rows,
                   coalesce(extract(epoch from now() - min(created_at)) filter (where status in ('pending', 'failed', 'processing')), 0)::bigint as oldest
            from integration_outbox group by status""";

    record Claimed(UUID outboxId, String eventType, JsonNode payload, int attempts, int maxAttempts) {
    }

    private final Pool pool;
    private final DiscordMessenger messenger;
    private final NotificationMetrics metrics;
    private final int batchSize;
    private final Duration lease;
    private final Duration initialBackoff;
    private final Duration maxBackoff;

    public NotificationDispatcher(Pool pool, DiscordMessenger messenger, NotificationMetrics metrics,
            @ConfigProperty(name = "guild.notifications.batch-size") int batchSize,
            @ConfigProperty(name = "guild.notifications.lease") Duration lease,
            @ConfigProperty(name = "guild.notifications.initial-backoff") Duration initialBackoff,
            @ConfigProperty(name = "guild.notifications.max-backoff") Duration maxBackoff) {
        this.pool = pool;
        this.messenger = messenger;
        this.metrics = metrics;
        this.batchSize = batchSize;
        this.lease = lease;
        this.initialBackoff = initialBackoff;
        this.maxBackoff = maxBackoff;
    }

    @Scheduled(every = "${guild.notifications.poll-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> round() {
        Uni<Integer> delivered = messenger.available() ? dispatchOnce() : Uni.createFrom().item(0);
        return delivered.chain(this::refreshBacklog)
                .onFailure().invoke(e -> LOG.warnf("notification round failed: %s", e.toString()))
                .onFailure().recoverWithNull().replaceWithVoid();
    }

    /** Claims one batch and delivers it; returns how many rows were claimed. */
    public Uni<Integer> dispatchOnce() {
        return pool.withTransaction(connection -> connection.preparedQuery(CLAIM)
                        .execute(Tuple.of(batchSize, (double) lease.toSeconds())))
                .map(rows -> {
                    List<Claimed> claimed = new ArrayList<>();
                    rows.forEach(row -> claimed.add(claimed(row)));
                    return claimed;
                })
                .chain(claimed -> Multi.createFrom().iterable(claimed)
                        .onItem().transformToUni(this::deliver).merge(4)
                        .collect().last()
                        .replaceWith(claimed.size()));
    }

    private Uni<Void> deliver(Claimed message) {
        return pool.preparedQuery("select owner_id from guild where guild_id = $1 and status <> 'DELETED'")
                .execute(Tuple.of(message.payload().path("guild_id").asText()))
                .chain(rows -> {
                    if (rows.size() == 0) {
                        return recordFailure(message, "no owner to tell: the guild is unknown or deleted", true);
                    }
                    String recipient = rows.iterator().next().getString("owner_id");
                    String content = NotificationTemplates.render(message.eventType(), message.payload().path("params"));
                    return messenger.send(recipient, content, message.outboxId())
                            .chain(discordMessageId -> pool.preparedQuery(COMPLETED).execute(Tuple.of(message.outboxId())))
                            .invoke(() -> metrics.delivery("delivered"))
                            .replaceWithVoid()
                            .onFailure().recoverWithUni(error -> recordFailure(message, error.toString(), false));
                });
    }

    /** A hopeless message (nobody to tell) is dead at once; any other failure is retried later, until its last attempt. */
    private Uni<Void> recordFailure(Claimed message, String error, boolean hopeless) {
        LOG.warnf("notification %s (%s) not delivered, attempt %d of %d: %s", message.outboxId(), message.eventType(),
                message.attempts(), message.maxAttempts(), error);
        if (hopeless) {
            metrics.delivery("dead_lettered");
            return pool.preparedQuery(DEAD).execute(Tuple.of(message.outboxId(), truncate(error))).replaceWithVoid();
        }
        double backoffSeconds = backoff(message.attempts()).toMillis() / 1000.0;
        return pool.preparedQuery(FAILED).execute(Tuple.of(message.outboxId(), backoffSeconds, truncate(error)))
                .invoke(rows -> rows.forEach(row -> metrics.delivery("dead_letter".equals(row.getString("status")) ? "dead_lettered" : "failed")))
                .replaceWithVoid();
    }

    /** initial × 2^(attempt−1), at most max, ±20 % jitter so that retries of one outage do not come back together. */
    Duration backoff(int attempt) {
        double exponential = initialBackoff.toMillis() * Math.pow(2, Math.max(0, attempt - 1));
        double capped = Math.min(exponential, maxBackoff.toMillis());
        return Duration.ofMillis((long) (capped * ThreadLocalRandom.current().nextDouble(0.8, 1.2)));
    }

    private Uni<Integer> refreshBacklog(int claimed) {
        return pool.query(BACKLOG).execute().invoke(rows -> {
            for (NotificationStatus status : NotificationStatus.values()) {
                metrics.backlog(status, 0);
            }
            long oldest = 0;
            for (Row row : rows) {
                NotificationStatus status = NotificationStatus.valueOf(row.getString("status").toUpperCase());
                metrics.backlog(status, row.getLong("rows"));
                oldest = Math.max(oldest, row.getLong("oldest"));
            }
            metrics.oldestPending(oldest);
        }).replaceWith(claimed);
    }

    private static Claimed claimed(Row row) {
        try {
            return new Claimed(row.getUUID("outbox_id"), row.getString("event_type"),
                    JSON.readTree(row.getJsonObject("payload").encode()), row.getInteger("attempts"), row.getInteger("max_attempts"));
        } catch (java.io.IOException e) {
            throw new IllegalStateException("unreadable payload of integration_outbox row " + row.getUUID("outbox_id"), e);
        }
    }

    private static String truncate(String error) {
        return error.length() <= MAX_ERROR_LENGTH ? error : error.substring(0, MAX_ERROR_LENGTH);
    }
}
