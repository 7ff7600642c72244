package dev.umbra.licensing.license;

import dev.umbra.events.plan.Plan;
import java.time.Instant;
import java.util.UUID;

public record LicenseView(UUID licenseId, String guildId, Plan plan, LicenseStatus status, String suspensionReason,
        Instant expiresAt, UUID subscriptionId, Plan pendingPlan, Instant pendingPlanAt) {

    static LicenseView of(License license) {
        LicenseState state = license.state();
        return new LicenseView(license.licenseId, license.guildId, license.plan, license.status, license.suspensionReason,
                state.effectiveExpiresAt(), license.subscriptionId, license.pendingPlan, license.pendingPlanAt);
    }
}
