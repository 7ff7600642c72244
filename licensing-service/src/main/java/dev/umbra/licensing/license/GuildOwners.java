package dev.umbra.licensing.license;

import dev.umbra.events.EventEnvelope;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.GuildOwnerChanged;
import dev.umbra.platform.inbox.Delivered;
import dev.umbra.platform.storage.NativeSelects;
import dev.umbra.platform.web.ProblemException;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.hibernate.reactive.panache.common.WithSession;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;

/**
 * Who owns each guild, learned from guild events (table {@code guild_owner}): the new owner of the
 * latest GuildOwnerChanged, else the installer of the earliest BotInstalled (guild-service makes the
 * first installer the owner and keeps the owner on a reinstall). "Latest" and "earliest" are the
 * guild's stream order, the sequence its outbox gave each event (as {@code StreamMark} compares them:
 * by time only where an event carried no sequence), so a replayed or late event cannot roll the owner
 * back, the same events give the same owner in any order, and two guild-service replicas whose clocks
 * disagree cannot either.
 */
@ApplicationScoped
public class GuildOwners {

    // A run of installs in one statement: per guild, the earliest of the run (the first applied of equals).
    private static final String INSTALLED = """
            insert into guild_owner (guild_id, first_installer_id, first_installed_at, first_installed_sequence)
            select distinct on (guild_id) guild_id, installer, installed_at, seq
            from unnest($1::text[], $2::text[], $3::timestamptz[], $4::bigint[]) with ordinality as i(guild_id, installer, installed_at, seq, position)
            order by guild_id, case when seq > 0 then seq end nulls last, installed_at, position
            on conflict (guild_id) do update
                set first_installer_id = excluded.first_installer_id, first_installed_at = excluded.first_installed_at,
                    first_installed_sequence = excluded.first_installed_sequence
                where guild_owner.first_installed_at is null
                   or case when excluded.first_installed_sequence > 0 and guild_owner.first_installed_sequence > 0
                           then excluded.first_installed_sequence < guild_owner.first_installed_sequence
                           else excluded.first_installed_at < guild_owner.first_installed_at end""";
    private static final String OWNER_CHANGED = """
            insert into guild_owner (guild_id, changed_owner_id, owner_changed_at, owner_changed_sequence) values (:guildId, :owner, :at, :sequence)
            on conflict (guild_id) do update
                set changed_owner_id = excluded.changed_owner_id, owner_changed_at = excluded.owner_changed_at,
                    owner_changed_sequence = excluded.owner_changed_sequence
                where guild_owner.owner_changed_at is null
                   or case when excluded.owner_changed_sequence > 0 and guild_owner.owner_changed_sequence > 0
                           then excluded.owner_changed_sequence >= guild_owner.owner_changed_sequence
                           else excluded.owner_changed_at >= guild_owner.owner_changed_at end""";
    private static final String OWNER = """
            select coalesce(changed_owner_id, first_installer_id) from guild_owner where guild_id = $1""";

    Uni<Void> onBotsInstalled(List<Delivered<BotInstalled>> installs) {
        List<Delivered<BotInstalled>> known = installs.stream().filter(install -> install.event().installerUserId() != null).toList();
        if (known.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        String[] guilds = known.stream().map(install -> install.event().guildId()).toArray(String[]::new);
        String[] installers = known.stream().map(install -> install.event().installerUserId()).toArray(String[]::new);
        OffsetDateTime[] at = known.stream().map(install -> install.envelope().occurredAt().atOffset(ZoneOffset.UTC))
                .toArray(OffsetDateTime[]::new);
        Long[] sequences = known.stream().map(install -> install.envelope().sequence()).toArray(Long[]::new);
        return Panache.getSession().chain(session -> NativeSelects.select(session, INSTALLED, guilds, installers, at, sequences))
                .replaceWithVoid();
    }

    Uni<Void> onOwnerChanged(GuildOwnerChanged event, EventEnvelope envelope) {
        if (event.newOwnerId() == null) {
            return Uni.createFrom().voidItem();
        }
        return Panache.getSession().chain(session -> session.createNativeQuery(OWNER_CHANGED)
                .setParameter("guildId", event.guildId())
                .setParameter("owner", event.newOwnerId())
                .setParameter("at", envelope.occurredAt())
                .setParameter("sequence", envelope.sequence())
                .executeUpdate()).replaceWithVoid();
    }

    /** Fails with 403 unless {@code discordUserId} owns the guild; an unknown guild is nobody's. */
    @WithSession
    public Uni<Void> requireOwner(String guildId, String discordUserId) {
        return Panache.getSession().chain(session -> NativeSelects.select(session, OWNER, guildId))
                .map(NativeSelects.column(String.class))
                .map(owners -> {
                    if (owners.isEmpty() || !Objects.equals(owners.get(0), discordUserId)) {
                        throw ProblemException.forbidden("a user reads only the licenses of guilds they own");
                    }
                    return null;
                });
    }
}
