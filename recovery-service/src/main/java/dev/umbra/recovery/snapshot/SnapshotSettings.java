package dev.umbra.recovery.snapshot;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

@ConfigMapping(prefix = "recovery.snapshot")
public interface SnapshotSettings {

    /** The largest structure stored, in bytes of its canonical JSON; larger ones are refused with 413. */
    @WithDefault("2097152")
    int maxBytes();

    /** How long a deleted guild's snapshots are kept (an owner who re-adds the bot may still restore), then purged. */
    @WithDefault("P30D")
    Duration keptAfterGuildDeleted();
}
