package dev.umbra.licensing.entitlement;

/** What a plan allows the bot to do for a guild (table plan_entitlement). */
public record Entitlements(int snapshotRetention, int restoresPerDay, boolean antiNuke, boolean webJoin, boolean memberRestore) {
}
