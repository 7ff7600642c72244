package dev.umbra.platform.workqueue;

import io.smallrye.config.ConfigMapping;
import jakarta.validation.constraints.Min;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithDefaults;
import io.smallrye.config.WithParentName;
import java.time.Duration;
import java.util.Map;

/** {@code umbra.work-queue.<queue>.*}; a queue that sets nothing gets these defaults. */
@ConfigMapping(prefix = "umbra.work-queue")
public interface WorkQueueConfig {

    @WithParentName
    @WithDefaults
    Map<String, Settings> queues();

    default Settings of(String queue) {
        return queues().get(queue);
    }

    interface Settings {

        /** How many due items one round claims. */
        @WithDefault("20")
        int batchSize();

        /** Items of one round tried at once: what bounds a queue whose tries wait on a slow far side (a gateway's 200 ms is 20/s at 4). */
        @WithDefault("4")
        @Min(1)
        int concurrency();

        /** How long a claim lasts; past it another worker may take the item over. Longer than the slowest try. */
        @WithDefault("PT1M")
        Duration lease();

        /** Tries that failed for the item's own reason before it is dead-lettered (outages never count). */
        @WithDefault("8")
        int maxAttempts();

        /**
         * Claims of an item that may run out with nothing recorded (its worker died or hung: no attempt is spent)
         * before the item is dead-lettered; a restart during a try costs one.
         */
        @WithDefault("3")
        @Min(0)
        int maxAbandonedClaims();

        @WithDefault("PT5S")
        Duration initialBackoff();

        @WithDefault("PT30M")
        Duration maxBackoff();

        /** How often the queue's handler looks for due items. */
        @WithDefault("PT1S")
        Duration pollInterval();

        /** Off for a queue a test drives by hand. */
        @WithDefault("true")
        boolean polling();

        /**
         * Done items stay for good instead of being deleted once they finished before the dedupe horizon
         * ({@code ProcessedEventTrimmer}): for a queue whose done item must go on refusing its key, such as billing's
         * renewals, where it keeps a sent attempt from being sent again while the gateway's answer is awaited.
         */
        @WithDefault("false")
        boolean keepDone();
    }
}
