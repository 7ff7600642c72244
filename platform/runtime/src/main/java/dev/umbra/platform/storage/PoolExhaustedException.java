package dev.umbra.platform.storage;

import io.vertx.core.VertxException;

/** No pooled connection became free within the acquire timeout: the database is busy, the request never reached it. */
public class PoolExhaustedException extends VertxException {

    PoolExhaustedException(long waitedMillis) {
        super("no pooled connection became free within " + waitedMillis + " ms", true);
    }
}
