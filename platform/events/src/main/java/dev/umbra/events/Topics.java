package dev.umbra.events;

/**
 * Topic names. Debezium's outbox router routes every row to {@code umbra.<aggregatetype>}
 * (see deploy/connectors); a consumer's poison messages go to {@code <topic>.dlq}.
 */
public final class Topics {
    public static final String PREFIX = "umbra.";
    public static final String DEAD_LETTER_SUFFIX = ".dlq";

    private Topics() {
    }

    public static String of(String aggregateType) {
        return PREFIX + aggregateType;
    }

    public static String deadLetterOf(String topic) {
        return topic + DEAD_LETTER_SUFFIX;
    }
}
