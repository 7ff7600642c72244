package dev.umbra.licensing;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The bodies of licensing-service's REST API, registered for the native image: Quarkus finds
 * most of them by itself, but a body reached only through a generic type or a field is not, and a
 * missing one fails only in the native build's users' hands. {@code RestPayloadsRegisteredTest} fails
 * when a body of an endpoint is missing here. Named, not class literals: some are nested in their
 * resources, out of this package's reach.
 */
@RegisterForReflection(classNames = {
        "dev.umbra.events.plan.Entitlements",
        "dev.umbra.events.plan.Plan",
        "dev.umbra.licensing.entitlement.GuildEntitlements",
        "dev.umbra.licensing.license.LicenseStatus",
        "dev.umbra.licensing.license.LicenseView"})
final class RestReflection {

    private RestReflection() {
    }
}
