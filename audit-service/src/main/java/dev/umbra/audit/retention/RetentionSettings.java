package dev.umbra.audit.retention;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.time.Duration;

/** {@code umbra.audit.retention.*}; the work queue's own settings are {@code umbra.work-queue.audit-retention.*}. */
@ConfigMapping(prefix = "umbra.audit.retention")
public interface RetentionSettings {

    /** Whole months kept before the current one; a month partition older than that is dropped. */
    @WithDefault("24")
    @Min(1)
    int keepMonths();

    /** Month partitions created ahead of the current one, so that an event never waits for its month. */
    @WithDefault("2")
    @Min(1)
    int monthsAhead();

    /**
     * Rows of the default partitions copied or moved by one statement on their way into their months: each
     * statement stays well within the statement timeout however many rows the defaults hold.
     */
    @WithDefault("5000")
    @Min(1)
    int rehomeBatchSize();

    /** From one run to the next. */
    @WithDefault("PT6H")
    Duration interval();
}
