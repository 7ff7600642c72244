package dev.umbra.recovery.restore;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

@ConfigMapping(prefix = "recovery.restore")
public interface RestoreSettings {

    /**
     * Tries of a restore's work item that fail in a row, with no step finished in between (Discord down or
     * rate-limiting, its circuit open), before the restore is given up → RestoreFailed. Progress is kept: a try
     * resumes after the last finished step, and a finished step starts the count anew. Below the work queue's
     * own max-attempts, so the restore, not the queue, decides.
     */
    @WithDefault("10")
    int maxAttempts();
}
