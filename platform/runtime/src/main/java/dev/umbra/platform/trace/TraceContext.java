package dev.umbra.platform.trace;

import io.smallrye.common.vertx.ContextLocals;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * The W3C {@code traceparent} of what is being handled: the HTTP request's header, or the event
 * being consumed. The outbox copies it onto every event written meanwhile, so a chain of events can
 * be followed back to the request that started it.
 */
public final class TraceContext {

    private static final String KEY = "umbra.traceparent";

    private TraceContext() {
    }

    public static String current() {
        Context context = Vertx.currentContext();
        if (context == null) {
            return null;
        }
        return ContextLocals.<String>get(KEY).orElse(null);
    }

    public static void set(String traceParent) {
        if (traceParent != null && Vertx.currentContext() != null && traceParent.matches("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}")) {
            ContextLocals.put(KEY, traceParent);
        }
    }
}
