package dev.umbra.platform.readmodel;

import dev.umbra.events.StreamMark;

/**
 * One license as licensing announced it: its guild, its plan and its status, each with the position of
 * the event that set it. The rules make the events of a license give the same state in any order of
 * arrival (a replay from a dead-letter topic brings an old one back late; an event may come before the
 * license's LicenseGranted): plan and status each move only to an event that is not older than the one
 * that set them, CANCELED is final (whenever it arrives), and the guild, which only LicenseGranted names, never changes.
 */
public record LicensePlan(String guildId, String plan, StreamMark planAt, String status, StreamMark statusAt) {

    public static final String ACTIVE = "ACTIVE";
    public static final String SUSPENDED = "SUSPENDED";
    public static final String CANCELED = "CANCELED";

    /** A license no event has told anything about yet. */
    public static final LicensePlan UNKNOWN = new LicensePlan(null, null, null, null, null);

    public LicensePlan granted(String guild, String grantedPlan, StreamMark at) {
        LicensePlan ofGuild = new LicensePlan(guildId == null ? guild : guildId, plan, planAt, status, statusAt);
        return ofGuild.withPlan(grantedPlan, at).withStatus(ACTIVE, at);
    }

    public LicensePlan downgraded(String newPlan, StreamMark at) {
        return withPlan(newPlan, at);
    }

    public LicensePlan suspended(StreamMark at) {
        return withStatus(SUSPENDED, at);
    }

    public LicensePlan canceled(StreamMark at) {
        return withStatus(CANCELED, at);
    }

    public boolean isActive() {
        return ACTIVE.equals(status);
    }

    private LicensePlan withPlan(String newPlan, StreamMark at) {
        return planAt == null || !at.before(planAt) ? new LicensePlan(guildId, newPlan, at, status, statusAt) : this;
    }

    /** CANCELED wins whatever its position, or it would depend on the order of arrival; the position kept is the newest seen. */
    private LicensePlan withStatus(String newStatus, StreamMark at) {
        boolean newer = statusAt == null || !at.before(statusAt);
        if (CANCELED.equals(status) || CANCELED.equals(newStatus)) {
            return new LicensePlan(guildId, plan, planAt, CANCELED, newer ? at : statusAt);
        }
        return newer ? new LicensePlan(guildId, plan, planAt, newStatus, at) : this;
    }
}
