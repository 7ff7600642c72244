package dev.umbra.recovery.snapshot;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Rolling retention, counted per kind: a guild keeps the newest {@code keep} (the plan's count) of its
 * regular snapshots, the bot's (MANUAL and SCHEDULED together), which are the ones users restore from, and
 * as many of each kind recovery takes itself of a guild that a restore or an incident is changing
 * (PRE_RESTORE, ANTI_NUKE). Counted apart, a run of incidents or restores never pushes out the snapshots
 * from before them. Older ones go, except a snapshot a running restore still needs. A downgrade shrinks
 * retention at the next snapshot, not before: nothing is deleted by a plan change alone.
 */
public final class Retention {

    /** A stored snapshot, as retention counts it. */
    public record Stored(UUID id, SnapshotTrigger trigger) {
    }

    private enum Kind {
        REGULAR, BEFORE_RESTORE, INCIDENT;

        static Kind of(SnapshotTrigger trigger) {
            return switch (trigger) {
                case MANUAL, SCHEDULED -> REGULAR;
                case PRE_RESTORE -> BEFORE_RESTORE;
                case ANTI_NUKE -> INCIDENT;
            };
        }
    }

    private Retention() {
    }

    /** Of a guild's snapshots, newest first, those to delete. */
    public static List<UUID> beyond(List<Stored> newestFirst, int keep, Set<UUID> inUse) {
        Map<Kind, Integer> newerOfItsKind = new EnumMap<>(Kind.class);
        List<UUID> delete = new ArrayList<>();
        for (Stored snapshot : newestFirst) {
            int newer = newerOfItsKind.merge(Kind.of(snapshot.trigger()), 1, Integer::sum) - 1;
            if (newer >= Math.max(keep, 1) && !inUse.contains(snapshot.id())) {
                delete.add(snapshot.id());
            }
        }
        return delete;
    }
}
