package dev.umbra.platform.trace;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The W3C {@code traceparent} of what is being handled, as OpenTelemetry knows it: the span of the
 * HTTP request (a child of the caller's {@code traceparent}, if any) or of the event being consumed.
 * The outbox writes it into every event's {@code tracingspancontext}, Debezium's event router carries
 * it into the record's {@code traceparent} header, and the inbox continues the trace from there: one
 * trace spans REST, outbox, Kafka, the consumer, its own outbox and the next consumer.
 */
public final class TraceContext {

    private static final Pattern TRACE_PARENT = Pattern.compile("00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})");

    private TraceContext() {
    }

    /** The current span's {@code traceparent}; null outside any trace. */
    public static String current() {
        return of(Span.current());
    }

    /** The span's {@code traceparent}; null for an invalid span. */
    public static String of(Span span) {
        SpanContext context = span.getSpanContext();
        return context.isValid() ? "00-" + context.getTraceId() + "-" + context.getSpanId() + "-" + context.getTraceFlags().asHex() : null;
    }

    /** The context whose parent is the (remote) span a {@code traceparent} names; the root context for none or a malformed one. */
    public static Context parentOf(String traceParent) {
        Matcher parts = traceParent == null ? null : TRACE_PARENT.matcher(traceParent);
        if (parts == null || !parts.matches()) {
            return Context.root();
        }
        SpanContext remote = SpanContext.createFromRemoteParent(parts.group(1), parts.group(2),
                TraceFlags.fromHex(parts.group(3), 0), TraceState.getDefault());
        return remote.isValid() ? Context.root().with(Span.wrap(remote)) : Context.root();
    }
}
