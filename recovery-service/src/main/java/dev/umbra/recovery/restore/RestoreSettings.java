package dev.umbra.recovery.restore;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

@ConfigMapping(prefix = "recovery.restore")
public interface RestoreSettings {

    /**
     * Tries of a restore's work item that fail (Discord down, its circuit open, the database away) before
     * the restore is given up → RestoreFailed. Progress is kept: a try resumes after the last finished step.
     * Below the work queue's own max-attempts, so the restore, not the queue, decides.
     */
    @WithDefault("10")
    int maxAttempts();
}
