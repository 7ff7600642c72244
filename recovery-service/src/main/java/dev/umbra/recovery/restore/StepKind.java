package dev.umbra.recovery.restore;

/** What one step of a restore does, in the order a plan applies them; {@link #counted} says under which total it counts. */
public enum StepKind {
    CREATE_ROLE("created"),
    UPDATE_ROLE("updated"),
    ORDER_ROLES("updated"),
    CREATE_CHANNEL("created"),
    UPDATE_CHANNEL("updated"),
    SET_MEMBER_ROLES("updated"),
    DELETE_CHANNEL("deleted"),
    DELETE_ROLE("deleted");

    final String counted;

    StepKind(String counted) {
        this.counted = counted;
    }

    /** A create is the one call that is not idempotent: its answer must be recorded, or the object found again, before it is sent twice. */
    boolean creates() {
        return this == CREATE_ROLE || this == CREATE_CHANNEL;
    }
}
