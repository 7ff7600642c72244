package dev.umbra.recovery.snapshot;

/** Why a snapshot was taken. */
public enum SnapshotTrigger {
    MANUAL, SCHEDULED, PRE_RESTORE, ANTI_NUKE
}
