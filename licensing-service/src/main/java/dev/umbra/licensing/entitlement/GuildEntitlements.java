package dev.umbra.licensing.entitlement;

import dev.umbra.licensing.license.LicenseStatus;
import dev.umbra.licensing.license.Plan;

/**
 * @param plan           the license's plan
 * @param entitledPlan   the plan whose allowances apply: the license's plan while it is active, FREE otherwise
 */
public record GuildEntitlements(String guildId, Plan plan, LicenseStatus status, Plan entitledPlan, Entitlements entitlements) {
}
