package dev.umbra.testing;

import java.util.concurrent.ThreadLocalRandom;

/** Random Discord ids, so that tests sharing one stack never touch each other's guilds. */
public final class Snowflakes {

    private Snowflakes() {
    }

    public static String random() {
        return Long.toString(ThreadLocalRandom.current().nextLong(100_000_000_000_000_000L, Long.MAX_VALUE));
    }

    /** A random id whose Kafka partition (of {@code partitions}) is the same as {@code key}'s. */
    public static String onSamePartitionAs(String key, int partitions) {
        int partition = KafkaProbe.partitionOf(key, partitions);
        while (true) {
            String candidate = random();
            if (KafkaProbe.partitionOf(candidate, partitions) == partition) {
                return candidate;
            }
        }
    }
}
