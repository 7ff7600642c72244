package dev.umbra.billing.webhook;

import dev.umbra.platform.storage.Statements;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Set;
import java.util.UUID;

/**
 * The table {@code webhook_events} (partitioned by month of received_at) and its key table
 * {@code webhook_event_key}, which makes (provider, provider event id) unique across partitions: both
 * rows are written in one transaction, and a redelivery finds the key taken and gets the first
 * delivery's row instead of a second one.
 */
@ApplicationScoped
class WebhookEvents {

    static final String RECEIVED = "received";
    static final String PROCESSING = "processing";
    static final String COMPLETED = "completed";
    static final String SKIPPED = "skipped";
    static final String FAILED = "failed";
    private static final Set<String> FINISHED = Set.of(COMPLETED, SKIPPED, FAILED);

    private static final String TAKE_KEY = """
            insert into webhook_event_key (provider, provider_event_id, event_id, received_at) values ($1, $2, $3, $4)
            on conflict (provider, provider_event_id) do nothing""";
    private static final String INSERT = """
            insert into webhook_events (id, received_at, provider, provider_event_id, event_type, payload, status)
            values ($1, $2, $3, $4, $5, $6, $7)""";
    private static final String FIRST_DELIVERY = """
            select e.id, e.received_at, e.status from webhook_event_key k
            join webhook_events e on e.id = k.event_id and e.received_at = k.received_at
            where k.provider = $1 and k.provider_event_id = $2""";
    private static final String CLAIM = """
            update webhook_events set status = 'processing', attempts = attempts + 1
            where id = $1 and received_at = $2 and status in ('received', 'processing')""";
    private static final String FINISH_APART = """
            update webhook_events set status = $3, result = $4, processed_at = $5
            where id = $1 and received_at = $2 and status = 'processing'""";
    private static final String FINISH = """
            update webhook_events set status = ?3, result = ?4, processed_at = ?5
            where id = ?1 and received_at = ?2 and status = 'processing'""";
    private static final String ENSURE_PARTITIONS = "select ensure_webhook_events_partitions($1) as created";

    /** An event's row: a new one, or the first delivery's when this one is a duplicate. */
    record Recorded(UUID id, OffsetDateTime receivedAt, String status, boolean duplicate) {
        boolean finished() {
            return FINISHED.contains(status);
        }
    }

    private final Pool pool;

    WebhookEvents(Pool pool) {
        this.pool = pool;
    }

    /** Records a delivery unless its event is recorded already (then returns that one, marked duplicate). */
    Uni<Recorded> record(String provider, String providerEventId, String eventType, JsonObject payload, String status, Instant at) {
        UUID id = UUID.randomUUID();
        OffsetDateTime receivedAt = utc(at);
        return pool.withTransaction(connection -> connection.preparedQuery(TAKE_KEY)
                .execute(Tuple.of(provider, providerEventId, id, receivedAt))
                .chain(taken -> {
                    if (taken.rowCount() == 1) {
                        return connection.preparedQuery(INSERT)
                                .execute(Tuple.tuple().addValue(id).addValue(receivedAt).addValue(provider).addValue(providerEventId)
                                        .addValue(eventType).addValue(payload).addValue(status))
                                .replaceWith(new Recorded(id, receivedAt, status, false));
                    }
                    return connection.preparedQuery(FIRST_DELIVERY).execute(Tuple.of(provider, providerEventId)).map(rows -> {
                        Row first = rows.iterator().next();
                        return new Recorded(first.getUUID("id"), first.getOffsetDateTime("received_at"), first.getString("status"), true);
                    });
                }));
    }

    /**
     * Marks an unfinished event as being applied (committed at once: an event left in processing
     * is one whose apply was cut short). False when it was finished meanwhile.
     */
    Uni<Boolean> claim(Recorded event) {
        return Statements.execute(pool, CLAIM, Tuple.of(event.id(), event.receivedAt()))
                .map(rows -> rows.rowCount() == 1);
    }

    /** Finishes a claimed event in the caller's Hibernate Reactive transaction (the one that applied it). */
    Uni<Void> finish(Recorded event, String status, String result, Instant at) {
        return Panache.getSession().chain(session -> session.createNativeQuery(FINISH)
                .setParameter(1, event.id()).setParameter(2, event.receivedAt()).setParameter(3, status)
                .setParameter(4, result).setParameter(5, utc(at))
                .executeUpdate()).replaceWithVoid();
    }

    /** Finishes a claimed event on its own, when the transaction that applied it rolled back (it lost a race). */
    Uni<Void> finishApart(Recorded event, String status, String result, Instant at) {
        return Statements.execute(pool, FINISH_APART, Tuple.of(event.id(), event.receivedAt(), status, result, utc(at)))
                .replaceWithVoid();
    }

    /** Creates the monthly partitions from this month to {@code monthsAhead} later that are missing; returns how many. */
    Uni<Integer> ensurePartitions(int monthsAhead) {
        return Statements.execute(pool, ENSURE_PARTITIONS, Tuple.of(monthsAhead))
                .map(rows -> rows.iterator().next().getInteger("created"));
    }

    private static OffsetDateTime utc(Instant at) {
        return at.atOffset(ZoneOffset.UTC);
    }
}
