package dev.umbra.licensing.entitlement;

import dev.umbra.events.plan.Entitlements;
import dev.umbra.events.plan.Plan;
import dev.umbra.licensing.license.LicenseStatus;

/**
 * @param plan           the license's plan
 * @param entitledPlan   the plan whose allowances apply: the license's plan while it is active, FREE otherwise
 */
public record GuildEntitlements(String guildId, Plan plan, LicenseStatus status, Plan entitledPlan, Entitlements entitlements) {
}
