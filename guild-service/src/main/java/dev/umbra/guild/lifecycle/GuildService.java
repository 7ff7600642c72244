package dev.umbra.guild.lifecycle;

import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.events.guild.GuildDeleted;
import dev.umbra.events.guild.GuildOwnerChanged;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.web.ProblemException;
import io.quarkus.hibernate.reactive.panache.common.WithSession;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import org.jboss.logging.Logger;

@ApplicationScoped
public class GuildService {

    public record Installation(Guild guild, boolean created) {
    }

    private static final Logger LOG = Logger.getLogger(GuildService.class);

    private final OutboxWriter outbox;
    private final Clock clock;

    public GuildService(OutboxWriter outbox, Clock clock) {
        this.outbox = outbox;
        this.clock = clock;
    }

    @WithTransaction
    public Uni<Installation> install(String guildId, String installerUserId, Instant occurredAt) {
        return Guild.<Guild>findById(guildId).chain(existing -> {
            if (existing == null) {
                Guild guild = Guild.installed(guildId, installerUserId, occurredAt, clock.instant());
                return guild.<Guild>persist()
                        .chain(() -> outbox.publish(new BotInstalled(guildId, installerUserId)))
                        .replaceWith(new Installation(guild, true));
            }
            if (existing.status == GuildStatus.DELETED) {
                return Uni.createFrom().failure(ProblemException.conflict("guild " + guildId + " was deleted"));
            }
            if (existing.presenceOvertaken(occurredAt)) {
                overtaken(existing, "install", occurredAt, existing.presenceAt);
            }
            if (!existing.install(installerUserId, occurredAt, clock.instant())) {
                return Uni.createFrom().item(new Installation(existing, false));
            }
            return outbox.publish(new BotInstalled(guildId, installerUserId)).replaceWith(new Installation(existing, false));
        });
    }

    /**
     * A kick of a guild not seen installed is kept when it says when it happened (the install it overtook is then
     * refused its effect when it comes, see {@link Guild#kickedUnseen}); without that, it is a 404.
     */
    @WithTransaction
    public Uni<Guild> kick(String guildId, Instant occurredAt) {
        return Guild.<Guild>findById(guildId).chain(guild -> {
            if (guild == null) {
                return occurredAt == null ? Uni.createFrom().failure(ProblemException.notFound("no guild " + guildId))
                        : Guild.kickedUnseen(guildId, occurredAt, clock.instant()).<Guild>persistAndFlush();
            }
            if (guild.presenceOvertaken(occurredAt)) {
                overtaken(guild, "kick", occurredAt, guild.presenceAt);
            }
            return guild.kick(occurredAt, clock.instant()) ? outbox.publish(new BotKicked(guildId)).replaceWith(guild)
                    : Uni.createFrom().item(guild);
        });
    }

    @WithTransaction
    public Uni<Guild> changeOwner(String guildId, String newOwnerId, Instant occurredAt) {
        return existing(guildId).chain(guild -> {
            if (guild.status == GuildStatus.DELETED) {
                return Uni.createFrom().failure(ProblemException.conflict("guild " + guildId + " was deleted"));
            }
            if (guild.ownerOvertaken(occurredAt)) {
                overtaken(guild, "owner change", occurredAt, guild.ownerAt);
            }
            String oldOwnerId = guild.ownerId;
            return guild.changeOwner(newOwnerId, occurredAt, clock.instant())
                    ? outbox.publish(new GuildOwnerChanged(guildId, oldOwnerId, newOwnerId)).replaceWith(guild)
                    : Uni.createFrom().item(guild);
        });
    }

    private static void overtaken(Guild guild, String call, Instant occurredAt, Instant latest) {
        LOG.infof("guild %s: the %s of %s came after a later one of %s on Discord was applied; it changes nothing", guild.guildId, call,
                occurredAt, latest);
    }

    /**
     * A guild we never saw installed is kept as deleted, and nothing is published (no service knows it): its
     * install, overtaken by this delete, is then refused when it comes. Racing that install's insert, one of
     * the two loses on the key and runs again (the resource retries).
     */
    @WithTransaction
    public Uni<Guild> delete(String guildId) {
        return Guild.<Guild>findById(guildId).chain(guild -> {
            if (guild == null) {
                return Guild.deletedUnseen(guildId, clock.instant()).<Guild>persistAndFlush();
            }
            return guild.delete(clock.instant())
                    ? outbox.publish(new GuildDeleted(guildId)).replaceWith(guild)
                    : Uni.createFrom().item(guild);
        });
    }

    @WithSession
    public Uni<Guild> get(String guildId) {
        return existing(guildId);
    }

    private static Uni<Guild> existing(String guildId) {
        return Guild.<Guild>findById(guildId)
                .onItem().ifNull().failWith(() -> ProblemException.notFound("no guild " + guildId));
    }
}
