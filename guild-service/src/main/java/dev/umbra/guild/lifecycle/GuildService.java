package dev.umbra.guild.lifecycle;

import dev.umbra.events.guild.BotInstalled;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.web.ProblemException;
import io.quarkus.hibernate.reactive.panache.common.WithSession;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;

@ApplicationScoped
public class GuildService {

    public record Installation(Guild guild, boolean created) {
    }

    private final OutboxWriter outbox;
    private final Clock clock;

    public GuildService(OutboxWriter outbox, Clock clock) {
        this.outbox = outbox;
        this.clock = clock;
    }

    @WithTransaction
    public Uni<Installation> install(String guildId, String installerUserId) {
        return Guild.<Guild>findById(guildId).chain(existing -> {
            if (existing == null) {
                Guild guild = Guild.installed(guildId, installerUserId, clock.instant());
                return guild.<Guild>persist()
                        .chain(() -> outbox.publish(new BotInstalled(guildId, installerUserId)))
                        .replaceWith(new Installation(guild, true));
            }
            if (existing.status == GuildStatus.DELETED) {
                return Uni.createFrom().failure(ProblemException.conflict("guild " + guildId + " was deleted"));
            }
            if (!existing.install(installerUserId, clock.instant())) {
                return Uni.createFrom().item(new Installation(existing, false));
            }
            return outbox.publish(new BotInstalled(guildId, installerUserId)).replaceWith(new Installation(existing, false));
        });
    }

    @WithSession
    public Uni<Guild> get(String guildId) {
        return Guild.<Guild>findById(guildId)
                .onItem().ifNull().failWith(() -> ProblemException.notFound("no guild " + guildId));
    }
}
