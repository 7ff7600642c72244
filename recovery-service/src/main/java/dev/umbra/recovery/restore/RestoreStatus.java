package dev.umbra.recovery.restore;

/** QUEUED: not planned yet; RUNNING: planned, steps being applied; then COMPLETED or FAILED for good. */
public enum RestoreStatus {
    QUEUED, RUNNING, COMPLETED, FAILED;

    boolean finished() {
        return this == COMPLETED || this == FAILED;
    }
}
