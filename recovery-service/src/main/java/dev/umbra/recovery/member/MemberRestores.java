package dev.umbra.recovery.member;

import dev.umbra.events.member.MemberRestored;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.web.ProblemException;
import dev.umbra.recovery.antinuke.AntiNukeSuspects;
import dev.umbra.recovery.discord.DiscordFault;
import dev.umbra.recovery.discord.DiscordGuilds;
import dev.umbra.platform.readmodel.GuildPlans;
import dev.umbra.recovery.snapshot.GuildStructure;
import dev.umbra.recovery.snapshot.SnapshotService;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;

/**
 * Gives a member back the roles a snapshot shows them with (those of the roles that still exist on
 * Discord: a role deleted since is restored by a guild restore, not here) → MemberRestored. Plans
 * with member restore only (403 otherwise). Setting a member's roles is idempotent on Discord, so a
 * repeated request changes nothing more.
 *
 * <p>MemberRestored's member id is a UUID while Discord's are snowflakes: the id is the name-based
 * UUID of "guild id:member id", the same for one member of one guild every time.
 */
@ApplicationScoped
public class MemberRestores {

    public record Restored(String memberId, List<String> roles) {
    }

    private final SnapshotService snapshots;
    private final GuildPlans plans;
    private final DiscordGuilds discord;
    private final OutboxWriter outbox;

    public MemberRestores(SnapshotService snapshots, GuildPlans plans, DiscordGuilds discord, OutboxWriter outbox) {
        this.snapshots = snapshots;
        this.plans = plans;
        this.discord = discord;
        this.outbox = outbox;
    }

    /** The database steps are guarded one by one: Discord's time and faults are not the database's (RecoveryProblemMappers answers them). */
    public Uni<Restored> restore(String guildId, String memberId, UUID snapshotId) {
        return rolesInSnapshot(guildId, memberId, snapshotId)
                .chain(roles -> discord.roleIds(guildId).map(existing -> roles.stream().filter(existing::contains).toList())
                        .chain(kept -> discord.setMemberRoles(guildId, memberId, kept).map(present -> {
                            if (!present) {
                                throw ProblemException.notFound("member " + memberId + " is not in guild " + guildId + " on Discord");
                            }
                            return kept;
                        }))
                        .onFailure(CircuitBreakerOpenException.class).transform(open -> DiscordFault.circuitOpen()))
                .chain(roles -> recorded(guildId, memberId, roles));
    }

    @DatabaseGuard
    Uni<List<String>> rolesInSnapshot(String guildId, String memberId, UUID snapshotId) {
        return Panache.withSession(() -> snapshots.refuseIfDeleted(guildId, "no member restores").chain(() -> plans.entitlementsOf(guildId)).chain(entitlements -> {
                    if (!entitlements.memberRestore()) {
                        throw ProblemException.forbidden("the guild's plan does not include member restore");
                    }
                    return snapshots.find(guildId, snapshotId);
                }).call(snapshot -> AntiNukeSuspects.since(guildId, snapshot.createdAt).invoke(suspects -> {
                    if (suspects.contains(memberId)) {
                        throw ProblemException.conflict("member " + memberId + " was caught in an anti-nuke burst since snapshot " + snapshotId
                                + ": their roles are not given back from it");
                    }
                })).map(snapshot -> snapshot.decoded().members().stream().filter(member -> member.id().equals(memberId)).findFirst()
                        .map(GuildStructure.Member::roles)
                        .orElseThrow(() -> ProblemException.notFound("member " + memberId + " is not in snapshot " + snapshotId))));
    }

    @DatabaseGuard
    Uni<Restored> recorded(String guildId, String memberId, List<String> roles) {
        return Panache.withTransaction(() -> outbox.publish(new MemberRestored(memberUuid(guildId, memberId), guildId, roles)))
                .replaceWith(new Restored(memberId, roles));
    }

    static UUID memberUuid(String guildId, String memberId) {
        return UUID.nameUUIDFromBytes((guildId + ":" + memberId).getBytes(StandardCharsets.UTF_8));
    }
}
