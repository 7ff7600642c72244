package dev.umbra.platform.inbox;

import dev.umbra.events.EventCatalog;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code umbra_inbox_events_total{consumer,event_type,outcome}} (processed, duplicate, ignored,
 * dead_lettered), {@code umbra_inbox_failures_total{consumer,event_type,fault}} (failed attempts, by
 * fault: transient ones and conflicts (a race lost to another transaction) are retried without limit
 * while their partition waits, deterministic ones a
 * bounded number of times) and
 * {@code umbra_inbox_lag_seconds}: from the commit of the event's transaction in its producer (recorded_at) to
 * its processing, so a connector that lags counts too.
 */
@ApplicationScoped
public class InboxMetrics {

    private final MeterRegistry registry;
    private final Set<String> started = ConcurrentHashMap.newKeySet();

    public InboxMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void outcome(String consumer, String eventType, Outcome outcome) {
        startFailuresAtZero(consumer, known(eventType));
        Counter.builder("umbra.inbox.events")
                .description("Events a consumer has seen, by outcome")
                .tags("consumer", consumer, "event_type", known(eventType), "outcome", outcome.tag())
                .register(registry)
                .increment();
    }

    void failedAttempt(String consumer, String eventType, Fault fault) {
        failures(consumer, known(eventType), fault).increment();
    }

    /**
     * A consumer's failure series exist from its first event on, at zero: a rate or an increase over a
     * series that appears with its first failure misses that failure, and an alert on it sees nothing.
     */
    private void startFailuresAtZero(String consumer, String eventType) {
        if (started.add(consumer + '/' + eventType)) {
            for (Fault fault : Fault.values()) {
                failures(consumer, eventType, fault);
            }
        }
    }

    private Counter failures(String consumer, String eventType, Fault fault) {
        return Counter.builder("umbra.inbox.failures")
                .description("Attempts to apply an event that failed")
                .tags("consumer", consumer, "event_type", eventType, "fault", fault.tag())
                .register(registry);
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

    enum Fault {
        TRANSIENT, CONFLICT, DETERMINISTIC;

        String tag() {
            return name().toLowerCase();
        }
    }

    enum Outcome {
        PROCESSED, DUPLICATE, IGNORED, DEAD_LETTERED;

        String tag() {
            return name().toLowerCase();
        }
    }
}
