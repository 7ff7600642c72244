package dev.umbra.events.plan;

import java.util.Optional;

/**
 * The plans a guild can be on, in rank order (a later constant is a higher plan), and what each
 * allows: the one definition that licensing, guild and recovery all read. Event payloads carry a
 * plan as its name ({@code plan_code}, {@code new_plan}). Changing an allowance is a release of
 * every service that enforces it; the licensing answer and the services' own checks stay in step.
 */
public enum Plan {
    FREE(new Entitlements(1, 1, false, false, false)),
    PRO(new Entitlements(7, 5, true, true, false)),
    PREMIUM(new Entitlements(30, 20, true, true, true));

    private final Entitlements entitlements;

    Plan(Entitlements entitlements) {
        this.entitlements = entitlements;
    }

    public Entitlements entitlements() {
        return entitlements;
    }

    public boolean isAbove(Plan other) {
        return compareTo(other) > 0;
    }

    /** The plan an event names; empty for a code this version does not know. */
    public static Optional<Plan> ofCode(String code) {
        for (Plan plan : values()) {
            if (plan.name().equals(code)) {
                return Optional.of(plan);
            }
        }
        return Optional.empty();
    }
}
