package dev.umbra.recovery;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The bodies of recovery-service's REST API, registered for the native image: Quarkus finds
 * most of them by itself, but a body reached only through a generic type or a field is not, and a
 * missing one fails only in the native build's users' hands. {@code RestPayloadsRegisteredTest} fails
 * when a body of an endpoint is missing here. Named, not class literals: some are nested in their
 * resources, out of this package's reach.
 */
@RegisterForReflection(classNames = {
        "dev.umbra.recovery.antinuke.AuditLogResource$EntriesRequest",
        "dev.umbra.recovery.antinuke.AuditLogResource$EntryRequest",
        "dev.umbra.recovery.antinuke.AuditLogResource$Recorded",
        "dev.umbra.recovery.member.MemberRestoreResource$MemberRestoreRequest",
        "dev.umbra.recovery.member.MemberRestores$Restored",
        "dev.umbra.recovery.restore.RestoreResource$RestoreRequest",
        "dev.umbra.recovery.restore.RestoreStatus",
        "dev.umbra.recovery.restore.RestoreView",
        "dev.umbra.recovery.snapshot.GuildStructure",
        "dev.umbra.recovery.snapshot.GuildStructure$Channel",
        "dev.umbra.recovery.snapshot.GuildStructure$Member",
        "dev.umbra.recovery.snapshot.GuildStructure$Overwrite",
        "dev.umbra.recovery.snapshot.GuildStructure$Role",
        "dev.umbra.recovery.snapshot.SnapshotDiff",
        "dev.umbra.recovery.snapshot.SnapshotDiff$Changes",
        "dev.umbra.recovery.snapshot.SnapshotDiff$MemberChange",
        "dev.umbra.recovery.snapshot.SnapshotResource$TakeRequest",
        "dev.umbra.recovery.snapshot.SnapshotTrigger",
        "dev.umbra.recovery.snapshot.SnapshotView"})
final class RestReflection {

    private RestReflection() {
    }
}
