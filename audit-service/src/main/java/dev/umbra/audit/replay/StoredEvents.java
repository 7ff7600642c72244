package dev.umbra.audit.replay;

import dev.umbra.platform.storage.Statements;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** The audit log's events in a replay's scope, in the order they were recorded, a batch at a time after a cursor. */
@ApplicationScoped
public class StoredEvents {

    /** One stored event, as it is published again. */
    public record StoredEvent(UUID eventId, Instant recordedAt, Instant occurredAt, String aggregateType, String aggregateId, String eventType,
            int schemaVersion, long sequence, String traceContext, String payload, boolean masked, String topic) {

        /** Recorded before {@code horizon}: consumers may have forgotten they applied it. */
        public boolean olderThan(Instant horizon) {
            return recordedAt.isBefore(horizon);
        }
    }

    /**
     * Where a replay stands: after this event, in recorded order. Events committed in one millisecond (one
     * transaction's, say) share their recorded_at: an aggregate's come in the order of their sequence.
     */
    public record Cursor(Instant recordedAt, long sequence, UUID eventId) {

        static final Cursor START = new Cursor(Instant.EPOCH, 0, new UUID(0, 0));
    }

    public record Count(int total, int masked) {
    }

    private static final String IN_SCOPE = " from audit_log where (cast($1 as varchar) is null or aggregate_type = $1)"
            + " and (cast($2 as varchar) is null or aggregate_id = $2)"
            + " and (cast($3 as timestamptz) is null or occurred_at >= $3) and (cast($4 as timestamptz) is null or occurred_at < $4)";
    private static final String BATCH = "select event_id, recorded_at, occurred_at, aggregate_type, aggregate_id, event_type, schema_version,"
            + " sequence, trace_context, payload::text, jsonb_array_length(masked_fields) > 0, source_topic" + IN_SCOPE
            + " and (recorded_at, sequence, event_id) > ($5, $6, $7) order by recorded_at, sequence, event_id limit $8";
    private static final String COUNT = "select count(*), count(*) filter (where jsonb_array_length(masked_fields) > 0)" + IN_SCOPE;

    private final Pool pool;

    public StoredEvents(Pool pool) {
        this.pool = pool;
    }

    public Uni<Count> count(ReplayScope scope) {
        return Statements.execute(pool, COUNT, scope(scope)).map(rows -> {
            Row row = rows.iterator().next();
            return new Count(row.getLong(0).intValue(), row.getLong(1).intValue());
        });
    }

    public Uni<List<StoredEvent>> after(ReplayScope scope, Cursor cursor, int limit) {
        Tuple arguments = scope(scope).addValue(utc(cursor.recordedAt())).addLong(cursor.sequence()).addUUID(cursor.eventId())
                .addInteger(limit);
        return Statements.execute(pool, BATCH, arguments).map(rows -> {
            List<StoredEvent> events = new ArrayList<>();
            for (Row row : rows) {
                events.add(new StoredEvent(row.getUUID(0), row.getOffsetDateTime(1).toInstant(), row.getOffsetDateTime(2).toInstant(),
                        row.getString(3), row.getString(4), row.getString(5), row.getInteger(6), row.getLong(7), row.getString(8),
                        row.getString(9), row.getBoolean(10), row.getString(11)));
            }
            return events;
        });
    }

    private static Tuple scope(ReplayScope scope) {
        return Tuple.tuple().addString(scope.aggregateType()).addString(scope.aggregateId()).addValue(utc(scope.from()))
                .addValue(utc(scope.to()));
    }

    private static OffsetDateTime utc(Instant instant) {
        return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
    }
}
