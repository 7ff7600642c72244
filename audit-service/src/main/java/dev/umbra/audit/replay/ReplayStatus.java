package dev.umbra.audit.replay;

public enum ReplayStatus {
    QUEUED, RUNNING, COMPLETED, CANCELED, FAILED;

    public boolean finished() {
        return this == COMPLETED || this == CANCELED || this == FAILED;
    }
}
