package dev.umbra.licensing.license;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.licensing.LicenseCanceled;
import dev.umbra.events.licensing.LicenseDowngraded;
import dev.umbra.events.licensing.LicenseExtended;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.events.licensing.LicenseSuspended;
import java.util.ArrayList;
import java.util.List;

/** The events that tell the world how a license changed: derived from the states before and after, so no change means no event. */
public final class LicenseChanges {

    private LicenseChanges() {
    }

    public static List<DomainEvent> between(LicenseState before, LicenseState after) {
        List<DomainEvent> events = new ArrayList<>();
        if (after == null || after.equals(before)) {
            return events;
        }
        if (before == null) {
            if (after.status() == LicenseStatus.CANCELED) {
                // a deleted guild's tombstone: nobody was ever told of a license
                return events;
            }
            events.add(granted(after));
            if (after.status() == LicenseStatus.SUSPENDED) {
                events.add(new LicenseSuspended(after.licenseId(), after.suspensionReason()));
            }
            return events;
        }
        if (after.status() == LicenseStatus.CANCELED) {
            if (before.status() != LicenseStatus.CANCELED) {
                events.add(new LicenseCanceled(after.licenseId()));
            }
            return events;
        }
        boolean reactivated = before.status() == LicenseStatus.SUSPENDED && after.status() == LicenseStatus.ACTIVE;
        boolean dropped = before.plan().isAbove(after.plan());
        if (before.status() == LicenseStatus.ACTIVE && after.status() == LicenseStatus.SUSPENDED) {
            events.add(new LicenseSuspended(after.licenseId(), after.suspensionReason()));
        }
        // a plan that dropped is told as such even when the license comes back to life with it (a suspended subscription
        // ended): the owner hears of the downgrade, and the grant says the license is active again
        if (dropped) {
            events.add(new LicenseDowngraded(after.licenseId(), before.plan().name(), after.plan().name()));
        }
        if (after.plan().isAbove(before.plan()) && after.status() == LicenseStatus.ACTIVE || reactivated) {
            events.add(granted(after));
        } else if (!dropped && after.plan() == before.plan() && after.effectiveExpiresAt() != null
                && (before.effectiveExpiresAt() == null || after.effectiveExpiresAt().isAfter(before.effectiveExpiresAt()))) {
            events.add(new LicenseExtended(after.licenseId(), after.effectiveExpiresAt()));
        }
        return events;
    }

    private static LicenseGranted granted(LicenseState license) {
        return new LicenseGranted(license.licenseId(), license.guildId(), license.plan().name());
    }
}
