package dev.umbra.platform.inbox;

import dev.umbra.events.EventCatalog;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code umbra_inbox_events_total{consumer,event_type,outcome}} (processed, duplicate, ignored,
 * dead_lettered), {@code umbra_inbox_failures_total{kind}} (failed attempts, retried or not),
 * {@code umbra_inbox_waiting} (records held back by a transient fault) and
 * {@code umbra_inbox_lag_seconds}: from the event's capture (recorded_at) to its processing.
 */
@ApplicationScoped
public class InboxMetrics {

    private final MeterRegistry registry;
    private final Map<String, AtomicInteger> waiting = new ConcurrentHashMap<>();

    public InboxMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void outcome(String consumer, String eventType, Outcome outcome) {
        Counter.builder("umbra.inbox.events")
                .description("Events a consumer has seen, by outcome")
                .tags("consumer", consumer, "event_type", known(eventType), "outcome", outcome.tag())
                .register(registry)
                .increment();
    }

    void failedAttempt(String consumer, String eventType, FailureKind kind) {
        Counter.builder("umbra.inbox.failures")
                .description("Attempts to apply an event that failed, by kind: transient (retried without limit), handler, never_applicable")
                .tags("consumer", consumer, "event_type", known(eventType), "kind", kind.name().toLowerCase())
                .register(registry)
                .increment();
    }

    /** Records held back by a transient fault right now: above zero while the database (or a guard) is down. */
    void waiting(String consumer, int change) {
        waiting.computeIfAbsent(consumer, name -> {
            AtomicInteger count = new AtomicInteger();
            Gauge.builder("umbra.inbox.waiting", count, AtomicInteger::get)
                    .description("Records a consumer holds back while a transient fault lasts")
                    .tags("consumer", name)
                    .register(registry);
            return count;
        }).addAndGet(change);
    }

    void lag(String consumer, Instant recordedAt, Instant processedAt) {
        if (recordedAt == null) {
            return;
        }
        Timer.builder("umbra.inbox.lag")
                .description("Time from an event's capture by Debezium to its processing by a consumer")
                .tags("consumer", consumer)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(10))
                .register(registry)
                .record(Duration.between(recordedAt, processedAt).abs());
    }

    /** Keeps the label set bounded: a header that names no event of the catalogue counts as unknown. */
    private static String known(String eventType) {
        return eventType != null && EventCatalog.find(eventType).isPresent() ? eventType : "unknown";
    }

    enum Outcome {
        PROCESSED, DUPLICATE, IGNORED, DEAD_LETTERED;

        String tag() {
            return name().toLowerCase();
        }
    }
}
