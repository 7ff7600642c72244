package dev.umbra.platform.storage;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * One statement outside any transaction, on a connection taken for it. Not {@code pool.preparedQuery}:
 * while the database is unreachable, that path fails the caller when the connection attempt fails and
 * then again when the pool's acquire timer fires, and Vert.x logs the second failure as an uncaught
 * "Result is already complete" error for every statement tried during the outage (vertx-sql-client
 * issue 1706, open). Taking the connection first has no such timer.
 */
public final class Statements {

    private Statements() {
    }

    public static Uni<RowSet<Row>> execute(Pool pool, String sql, Tuple arguments) {
        return pool.withConnection(connection -> connection.preparedQuery(sql).execute(arguments));
    }

    public static Uni<RowSet<Row>> execute(Pool pool, String sql) {
        return pool.withConnection(connection -> connection.preparedQuery(sql).execute());
    }
}
