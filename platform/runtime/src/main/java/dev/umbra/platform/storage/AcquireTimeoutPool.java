package dev.umbra.platform.storage;

import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.impl.ContextInternal;
import io.vertx.pgclient.PgPool;
import io.vertx.sqlclient.PrepareOptions;
import io.vertx.sqlclient.PreparedQuery;
import io.vertx.sqlclient.Query;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import java.time.Duration;
import java.util.function.Function;

/**
 * The service's pool with the acquire timeout kept here rather than in Vert.x's pool. Vert.x 4.5's
 * own connection timeout cancels the waiter when it fires, and that cancel can race a connection
 * being handed to the same waiter (eclipse-vertx/vert.x#6169, fixed in 5.x only): the caller is
 * failed with "Timeout" and the connection it was given is never returned. Under a burst that
 * outlasts the timeout every connection of the pool was lost within seconds, and the service never
 * reached its database again. Here the waiter is never cancelled: a caller that waited too long is
 * failed with {@link PoolExhaustedException}, and the connection its request gets later is closed
 * at once, which returns it to the pool.
 */
final class AcquireTimeoutPool implements PgPool {

    private final PgPool pool;
    private final Vertx vertx;
    private final long timeoutMillis;

    AcquireTimeoutPool(PgPool pool, Vertx vertx, Duration timeout) {
        this.pool = pool;
        this.vertx = vertx;
        this.timeoutMillis = Math.max(1, timeout.toMillis());
    }

    @Override
    public Future<SqlConnection> getConnection() {
        Context current = Vertx.currentContext();
        ContextInternal context = (ContextInternal) (current != null ? current : vertx.getOrCreateContext());
        Promise<SqlConnection> answer = context.promise();
        long timer = context.setTimer(timeoutMillis, fired -> answer.tryFail(new PoolExhaustedException(timeoutMillis)));
        pool.getConnection().onComplete(acquired -> {
            vertx.cancelTimer(timer);
            if (acquired.failed()) {
                answer.tryFail(acquired.cause());
            } else if (!answer.tryComplete(acquired.result())) {
                // its caller gave up waiting: back to the pool
                acquired.result().close();
            }
        });
        return answer.future();
    }

    @Override
    public void getConnection(Handler<AsyncResult<SqlConnection>> handler) {
        getConnection().onComplete(handler);
    }

    @Override
    public Query<RowSet<Row>> query(String sql) {
        return pool.query(sql);
    }

    @Override
    public PreparedQuery<RowSet<Row>> preparedQuery(String sql) {
        return pool.preparedQuery(sql);
    }

    @Override
    public PreparedQuery<RowSet<Row>> preparedQuery(String sql, PrepareOptions options) {
        return pool.preparedQuery(sql, options);
    }

    @Override
    public void close(Handler<AsyncResult<Void>> handler) {
        pool.close(handler);
    }

    @Override
    public Future<Void> close() {
        return pool.close();
    }

    @Override
    public PgPool connectHandler(Handler<SqlConnection> handler) {
        pool.connectHandler(handler);
        return this;
    }

    @Override
    public PgPool connectionProvider(Function<Context, Future<SqlConnection>> provider) {
        pool.connectionProvider(provider);
        return this;
    }

    @Override
    public int size() {
        return pool.size();
    }
}
