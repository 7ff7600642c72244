package dev.umbra.audit.replay;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Duration;

/** {@code umbra.audit.replay.*}; the work queue's own settings are {@code umbra.work-queue.audit-replay.*}. */
@ConfigMapping(prefix = "umbra.audit.replay")
public interface ReplaySettings {

    /** Events published per round; the cursor is saved after each round. */
    @WithDefault("200")
    @Min(1)
    @Max(1000)
    int batchSize();

    /** How long one round's sends may wait for Kafka before the round is given up and tried again. */
    @WithDefault("PT30S")
    Duration sendTimeout();
}
