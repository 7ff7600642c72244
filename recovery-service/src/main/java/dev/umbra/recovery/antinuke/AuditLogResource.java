package dev.umbra.recovery.antinuke;

import dev.umbra.platform.web.DiscordId;
import dev.umbra.platform.web.Roles;
import dev.umbra.recovery.discord.BotUser;
import dev.umbra.recovery.discord.DiscordFault;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import java.time.Instant;
import java.util.List;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.jboss.resteasy.reactive.RestResponse;

/**
 * The bot forwards a guild's Discord audit-log entries, in order, up to 100 a request; the answer names the patterns they triggered.
 * The bot's own entries are told apart by its user id, which Discord is asked once: until it has answered, a request answers 503
 * (502 if Discord refuses the bot token) and stores nothing, as judging the bot's restores as a nuke would take its roles.
 */
@Path("/guilds/{guildId}/audit-log-entries")
public class AuditLogResource {

    public record EntryRequest(@NotNull @DiscordId String entryId, @NotBlank @Pattern(regexp = "[A-Z_]{1,40}") String action,
            @NotNull @DiscordId String actorId, @DiscordId String targetId, @NotNull Instant occurredAt) {
    }

    public record EntriesRequest(@NotNull @Size(min = 1, max = 100) List<@NotNull @Valid EntryRequest> entries) {
    }

    public record Recorded(List<String> triggered) {
    }

    private final AntiNukeDetector detector;
    private final BotUser botUser;

    public AuditLogResource(AntiNukeDetector detector, BotUser botUser) {
        this.detector = detector;
        this.botUser = botUser;
    }

    @POST
    @RolesAllowed(Roles.BOT)
    public Uni<RestResponse<Recorded>> forward(@PathParam("guildId") @DiscordId String guildId, @Valid @NotNull EntriesRequest request) {
        List<AntiNukeDetector.Entry> entries = request.entries().stream()
                .map(e -> new AntiNukeDetector.Entry(e.entryId(), e.action(), e.actorId(), e.targetId(), e.occurredAt())).toList();
        // Discord's open circuit is Discord's (503), never counted by the database's guard, which only the record runs under
        return botUser.id().onFailure(CircuitBreakerOpenException.class).transform(open -> DiscordFault.circuitOpen())
                .chain(ownBot -> detector.record(guildId, entries, ownBot))
                .map(triggered -> RestResponse.status(RestResponse.Status.ACCEPTED, new Recorded(triggered)));
    }
}
