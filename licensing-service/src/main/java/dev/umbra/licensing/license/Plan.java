package dev.umbra.licensing.license;

import dev.umbra.platform.inbox.RejectedEventException;

/** Plans in rank order: a later constant is a higher plan. */
public enum Plan {
    FREE, PRO, PREMIUM;

    /** The plan of an event's plan code; an unknown code can never be applied, so the event is rejected. */
    public static Plan ofCode(String code) {
        for (Plan plan : values()) {
            if (plan.name().equals(code)) {
                return plan;
            }
        }
        throw new RejectedEventException("unknown plan code " + code);
    }

    boolean isAbove(Plan other) {
        return compareTo(other) > 0;
    }
}
