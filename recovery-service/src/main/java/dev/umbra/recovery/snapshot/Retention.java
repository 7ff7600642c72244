package dev.umbra.recovery.snapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Rolling retention: a guild keeps its newest {@code keep} snapshots (the plan's count, whatever their
 * trigger); older ones go, except a snapshot a running restore still needs. A downgrade shrinks
 * retention at the next snapshot, not before: nothing is deleted by a plan change alone.
 */
public final class Retention {

    private Retention() {
    }

    /** Of a guild's snapshots, newest first, those to delete. */
    public static List<UUID> beyond(List<UUID> newestFirst, int keep, Set<UUID> inUse) {
        List<UUID> delete = new ArrayList<>();
        for (int i = Math.max(keep, 1); i < newestFirst.size(); i++) {
            if (!inUse.contains(newestFirst.get(i))) {
                delete.add(newestFirst.get(i));
            }
        }
        return delete;
    }
}
