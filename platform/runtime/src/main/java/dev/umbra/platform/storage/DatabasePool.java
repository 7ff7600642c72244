package dev.umbra.platform.storage;

import io.quarkus.reactive.pg.client.PgPoolCreator;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgPool;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnectOptions;
import jakarta.inject.Singleton;
import java.util.List;

/**
 * The reactive pool every service uses, Hibernate Reactive included, with the bounds of
 * {@link DatabaseSettings}: Quarkus exposes no acquire timeout of its own, and without one a request
 * waits for a connection as long as the pool's default of 30 s. The acquire timeout is
 * {@link AcquireTimeoutPool}'s, never Vert.x's (whose cancel leaks connections under load).
 */
@Singleton
public class DatabasePool implements PgPoolCreator {

    private final DatabaseSettings settings;

    public DatabasePool(DatabaseSettings settings) {
        this.settings = settings;
    }

    @Override
    public Pool create(Input input) {
        PoolOptions pool = new PoolOptions(input.poolOptions()).setConnectionTimeout(0);
        for (PgConnectOptions connection : input.pgConnectOptionsList()) {
            connection.setConnectTimeout((int) settings.connectTimeout().toMillis());
            connection.addProperty("statement_timeout", Long.toString(settings.statementTimeout().toMillis()));
            connection.addProperty("idle_in_transaction_session_timeout",
                    Long.toString(settings.idleInTransactionTimeout().toMillis()));
        }
        PgPool built = (PgPool) PgBuilder.pool()
                .with(pool)
                .connectingTo(List.<SqlConnectOptions>copyOf(input.pgConnectOptionsList()))
                .using(input.vertx())
                .build();
        return new AcquireTimeoutPool(built, input.vertx(), settings.acquireTimeout());
    }
}
