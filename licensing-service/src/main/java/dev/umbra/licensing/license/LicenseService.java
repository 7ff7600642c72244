package dev.umbra.licensing.license;

import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.web.ProblemException;
import io.quarkus.hibernate.reactive.panache.common.WithSession;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;

@ApplicationScoped
public class LicenseService {

    private final OutboxWriter outbox;
    private final Clock clock;

    public LicenseService(OutboxWriter outbox, Clock clock) {
        this.outbox = outbox;
        this.clock = clock;
    }

    /** A guild that installs the bot gets a FREE license, unless it has one already. Runs in the inbox transaction. */
    Uni<Void> onBotInstalled(BotInstalled event) {
        return License.findByGuild(event.guildId()).chain(existing -> {
            if (existing != null) {
                return Uni.createFrom().voidItem();
            }
            License license = License.free(event.guildId(), clock.instant());
            return license.<License>persist()
                    .chain(() -> outbox.publish(new LicenseGranted(license.licenseId, license.guildId, license.plan.name())))
                    .replaceWithVoid();
        });
    }

    @WithSession
    public Uni<License> ofGuild(String guildId) {
        return License.findByGuild(guildId)
                .onItem().ifNull().failWith(() -> ProblemException.notFound("no license for guild " + guildId));
    }
}
