package dev.umbra.testing;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

/** What the inbox of the service under test has applied: its claims in {@code processed_event}. */
public final class InboxProbe {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private final Database database;

    InboxProbe(Database database) {
        this.database = database;
    }

    /** How many of these events the consumer has applied. */
    public long processed(String consumer, Collection<UUID> eventIds) {
        return database.count("select count(*) from processed_event where consumer = ? and event_id::text = any(string_to_array(?, ','))",
                consumer, eventIds.stream().map(UUID::toString).collect(Collectors.joining(",")));
    }

    /** Waits until the consumer has applied every one of these events. */
    public void awaitProcessed(String consumer, Collection<UUID> eventIds) {
        await().atMost(PATIENCE).until(() -> processed(consumer, eventIds) == eventIds.size());
    }

    /** Waits until the service has applied the event: one claim, whichever of its consumers reads its topic. */
    public void awaitProcessed(UUID eventId) {
        await().atMost(PATIENCE).until(() -> database.count("select count(*) from processed_event where event_id = ?", eventId) == 1);
    }

    public void awaitProcessed(String consumer, UUID eventId) {
        awaitProcessed(consumer, List.of(eventId));
    }
}
