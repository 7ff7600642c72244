package dev.umbra.guild.notification;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code umbra_notifications_backlog{status}}, {@code umbra_notifications_oldest_pending_seconds}
 * (refreshed by the dispatcher on every round) and {@code umbra_notifications_deliveries_total{outcome}}.
 */
@ApplicationScoped
public class NotificationMetrics {

    private final MeterRegistry registry;
    private final Map<NotificationStatus, AtomicLong> backlog = new EnumMap<>(NotificationStatus.class);
    private final AtomicLong oldestPendingSeconds = new AtomicLong();

    public NotificationMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (NotificationStatus status : NotificationStatus.values()) {
            AtomicLong count = new AtomicLong();
            backlog.put(status, count);
            Gauge.builder("umbra.notifications.backlog", count, AtomicLong::get)
                    .description("Integration-outbox rows by status").tag("status", status.column()).register(registry);
        }
        Gauge.builder("umbra.notifications.oldest.pending", oldestPendingSeconds, AtomicLong::get)
                .description("Age of the oldest message not yet delivered").baseUnit("seconds").register(registry);
    }

    void backlog(NotificationStatus status, long count) {
        backlog.get(status).set(count);
    }

    void oldestPending(long seconds) {
        oldestPendingSeconds.set(seconds);
    }

    void delivery(String outcome) {
        Counter.builder("umbra.notifications.deliveries").description("Delivery attempts by outcome")
                .tag("outcome", outcome).register(registry).increment();
    }
}
