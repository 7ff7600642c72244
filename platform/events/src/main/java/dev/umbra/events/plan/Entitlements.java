package dev.umbra.events.plan;

/**
 * What a plan allows the bot to do for a guild.
 *
 * @param snapshotRetention how many snapshots are kept
 * @param restoresPerDay    how many restores a day
 * @param antiNuke          anti-nuke protection
 * @param webJoin           a public web-join link
 * @param memberRestore     restoring members, not only the guild's structure
 */
public record Entitlements(int snapshotRetention, int restoresPerDay, boolean antiNuke, boolean webJoin, boolean memberRestore) {

    public Entitlements {
        if (snapshotRetention < 0 || restoresPerDay < 0) {
            throw new IllegalArgumentException("allowances are never negative");
        }
    }
}
