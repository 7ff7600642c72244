package dev.umbra.platform.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.PostgresServer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgPool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The pool's acquire timeout under a burst many times its size, against the real PostgreSQL: callers
 * that wait too long are failed as "pool exhausted", and no connection is lost on the way (with
 * Vert.x 4.5's own connection timeout, the cancel of a waiter raced the hand-over of a connection to
 * it and leaked one slot each time: a pool of 2 was gone after a few hundred callers).
 */
class AcquireTimeoutPoolIT {

    private static final int SIZE = 2;
    private static final int CALLERS = 600;

    private final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(4));

    @AfterEach
    void close() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void callersThatGiveUpWaitingLoseNoConnection() throws Exception {
        PgPool pool = pool(Duration.ofMillis(20));
        List<Context> contexts = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            contexts.add(vertx.getOrCreateContext());
        }
        AtomicInteger exhausted = new AtomicInteger();
        AtomicInteger other = new AtomicInteger();
        for (int round = 0; round < 5; round++) {
            List<Future<?>> burst = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                // callers on several event loops at once, as a service's requests and consumers are
                Promise<Object> done = Promise.promise();
                contexts.get(i % contexts.size()).runOnContext(go -> pool.withConnection(connection -> connection.query("select pg_sleep(0.001)")
                                .execute())
                        .otherwise(error -> {
                            (error instanceof PoolExhaustedException ? exhausted : other).incrementAndGet();
                            return null;
                        }).onComplete(ar -> done.complete()));
                burst.add(done.future());
            }
            Future.join(burst).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        }

        assertThat(exhausted.get()).as("callers that gave up waiting: the burst did exhaust the pool").isPositive();
        assertThat(other.get()).as("other failures").isZero();
        // every slot is back: the whole pool can be held at once. A lost slot never comes back; on a starved machine
        // a free one can take longer than the 20 ms timeout to be handed over, so the hold is tried again a while
        assertThat(canHoldAll(pool, Duration.ofSeconds(10))).as("the whole pool held at once").isTrue();
        pool.close().toCompletionStage().toCompletableFuture().join();
    }

    private static boolean canHoldAll(PgPool pool, Duration patience) throws Exception {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            List<SqlConnection> held = new ArrayList<>();
            try {
                for (int i = 0; i < SIZE; i++) {
                    held.add(pool.getConnection().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
                }
                return true;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof PoolExhaustedException)) {
                    throw e;
                }
                if (System.nanoTime() > deadline) {
                    return false;
                }
            } finally {
                held.forEach(SqlConnection::close);
            }
            Thread.sleep(50);
        }
    }

    private PgPool pool(Duration acquireTimeout) {
        PostgresServer postgres = Devstack.shared().postgres();
        PgConnectOptions connect = PgConnectOptions.fromUri(postgres.reactiveUrl("postgres")).setUser(postgres.user())
                .setPassword(postgres.password());
        PgPool built = (PgPool) PgBuilder.pool().with(new PoolOptions().setMaxSize(SIZE).setConnectionTimeout(0)).connectingTo(connect)
                .using(vertx).build();
        return new AcquireTimeoutPool(built, vertx, acquireTimeout);
    }
}
