package dev.umbra.platform.storage;

import io.smallrye.mutiny.Uni;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.hibernate.reactive.mutiny.Mutiny;
import org.hibernate.reactive.mutiny.impl.MutinySessionImpl;
import org.hibernate.reactive.pool.ReactiveConnection;

/**
 * Native selects ({@code select …}, {@code insert … returning …}) in the session's transaction, on its
 * own connection, after its pending changes are flushed (as Hibernate flushes before a native query).
 * Placeholders are PostgreSQL's: {@code $1, $2, …}; an {@code Instant}, or an array of them, is bound as UTC.
 *
 * <p>Why not {@code session.createNativeQuery(sql)}: Hibernate Reactive 3.2 wraps every native query's
 * result mapping in a {@code ReactiveResultSetMapping} without equality, so the plan of a native select
 * is never found in Hibernate's plan cache again. Every call added one more entry under the SQL's hash
 * and compared itself with all the earlier ones: a fifth of guild-service's CPU under load (JFR:
 * {@code SelectInterpretationsKey.equals} in one treeified bin of the cache), and the junk evicted the
 * HQL plans the cache is for. {@code QueryPlanReuseIT} fails if a native select reaches that cache again.
 */
public final class NativeSelects {

    private NativeSelects() {
    }

    /** The rows, each as its columns' values (uuid as UUID, int8 as Long, timestamptz as OffsetDateTime…). */
    public static Uni<List<Object[]>> select(Mutiny.Session session, String sql, Object... arguments) {
        ReactiveConnection connection = ((MutinySessionImpl) session).getReactiveConnection();
        Object[] bound = new Object[arguments.length];
        for (int i = 0; i < arguments.length; i++) {
            bound[i] = arguments[i] instanceof Instant instant ? instant.atOffset(ZoneOffset.UTC)
                    : arguments[i] instanceof Instant[] instants ? Arrays.stream(instants).map(at -> at == null ? null : at.atOffset(ZoneOffset.UTC))
                            .toArray(OffsetDateTime[]::new)
                    : arguments[i];
        }
        return session.flush()
                .chain(() -> Uni.createFrom().completionStage(() -> connection.select(sql, bound)))
                .map(result -> {
                    List<Object[]> rows = new ArrayList<>(result.size());
                    result.forEachRemaining(rows::add);
                    return rows;
                });
    }

    /** The first column of every row as {@code type}. */
    public static <T> Function<List<Object[]>, List<T>> column(Class<T> type) {
        return rows -> rows.stream().map(row -> value(row[0], type)).toList();
    }

    /** The first column of the first row as {@code type}; null without rows. */
    public static <T> Function<List<Object[]>, T> single(Class<T> type) {
        return rows -> rows.isEmpty() ? null : value(rows.get(0)[0], type);
    }

    /** One column's value as the Java type the caller expects. */
    public static <T> T value(Object column, Class<T> type) {
        if (column == null || type.isInstance(column)) {
            return type.cast(column);
        }
        Object converted = null;
        if (column instanceof Number number) {
            if (type == Long.class) {
                converted = number.longValue();
            } else if (type == Integer.class) {
                converted = Math.toIntExact(number.longValue());
            }
        } else if (type == UUID.class) {
            converted = UUID.fromString(column.toString());
        } else if (type == String.class) {
            converted = column.toString();
        } else if (type == Instant.class && column instanceof OffsetDateTime time) {
            converted = time.toInstant();
        }
        if (converted == null) {
            throw new IllegalStateException("a " + column.getClass().getName() + " column read as " + type.getName());
        }
        return type.cast(converted);
    }
}
