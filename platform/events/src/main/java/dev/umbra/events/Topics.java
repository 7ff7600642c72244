package dev.umbra.events;

import java.time.Duration;

/**
 * Topic names. Debezium's outbox router routes every row to {@code umbra.<aggregatetype>}
 * (see deploy/connectors); a consumer's poison messages go to {@code <topic>.dlq}.
 */
public final class Topics {
    public static final String PREFIX = "umbra.";
    public static final String DEAD_LETTER_SUFFIX = ".dlq";
    /**
     * How long a dead-letter topic keeps a record (its {@code retention.ms}, 21 days): a redrive must come while every consumer
     * still remembers what it applied (processed_event is kept 30 days), or a consumer that had applied the event would apply
     * it again. Past it the audit log keeps the event (and its replay re-publishes it for 15 days).
     */
    public static final Duration DEAD_LETTER_RETENTION = Duration.ofDays(21);

    private Topics() {
    }

    public static String of(String aggregateType) {
        return PREFIX + aggregateType;
    }

    public static String deadLetterOf(String topic) {
        return topic + DEAD_LETTER_SUFFIX;
    }
}
