package dev.umbra.audit;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The bodies of audit-service's REST API, registered for the native image: Quarkus finds
 * most of them by itself, but a body reached only through a generic type or a field is not, and a
 * missing one fails only in the native build's users' hands. {@code RestPayloadsRegisteredTest} fails
 * when a body of an endpoint is missing here. Named, not class literals: some are nested in their
 * resources, out of this package's reach.
 */
@RegisterForReflection(classNames = {
        "dev.umbra.audit.query.AuditEntry",
        "dev.umbra.audit.query.AuditEntry$Source",
        "dev.umbra.audit.query.AuditPage",
        "dev.umbra.audit.replay.ReplayScope$Request",
        "dev.umbra.audit.replay.ReplayStatus",
        "dev.umbra.audit.replay.ReplayView"})
final class RestReflection {

    private RestReflection() {
    }
}
