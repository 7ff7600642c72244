package dev.umbra.guild.lifecycle;

import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.storage.StorageFaults;
import dev.umbra.platform.web.DiscordId;
import dev.umbra.platform.web.Instants;
import dev.umbra.platform.web.ProblemException;
import dev.umbra.platform.web.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jboss.resteasy.reactive.RestResponse;

/** Calls of the Discord bot gateway about a guild's lifecycle. */
@Path("/guilds/{guildId}")
@RolesAllowed(Roles.BOT)
@DatabaseGuard
public class GuildResource {

    /** How far Discord's clock may be ahead of ours: a time later than that is no time an event happened, and would overtake every later call. */
    static final Duration DISCORD_CLOCK_AHEAD = Duration.ofMinutes(5);

    private final GuildService guilds;
    private final Clock clock;

    public GuildResource(GuildService guilds, Clock clock) {
        this.guilds = guilds;
        this.clock = clock;
    }

    /** The bot was added to the guild: 201 the first time, 200 for a repeat or a reinstall after a kick. */
    @POST
    @Path("/installation")
    public Uni<RestResponse<GuildView>> install(
            @PathParam("guildId") @DiscordId String guildId,
            @Valid @NotNull InstallationRequest request) {
        Instant at = discordTime(request.occurredAt());
        return guilds.install(guildId, request.installerUserId(), at)
                // Two first installs racing: the loser finds the winner's guild and answers as a repeat.
                .onFailure(StorageFaults::lostRace).recoverWithUni(() -> guilds.install(guildId, request.installerUserId(), at))
                .map(installation -> RestResponse.ResponseBuilder
                        .create(installation.created() ? Response.Status.CREATED : Response.Status.OK, GuildView.of(installation.guild()))
                        .type(MediaType.APPLICATION_JSON_TYPE)
                        .build());
    }

    /**
     * The bot was removed from the guild: BotKicked the first time; a repeat changes nothing. An unknown guild is a 404, unless
     * {@code occurredAt} says when it happened on Discord: then the kick overtook the install, and is kept.
     */
    @DELETE
    @Path("/installation")
    public Uni<GuildView> kick(@PathParam("guildId") @DiscordId String guildId, @QueryParam("occurredAt") String occurredAt) {
        Instant at = discordTime(Instants.parameter("occurredAt", occurredAt));
        return guilds.kick(guildId, at)
                // The gateway delivering one kick twice at once: the loser finds the guild kicked and answers as a repeat.
                .onFailure(StorageFaults::lostRace).recoverWithUni(() -> guilds.kick(guildId, at))
                .map(GuildView::of);
    }

    @PUT
    @Path("/owner")
    public Uni<GuildView> changeOwner(@PathParam("guildId") @DiscordId String guildId, @Valid @NotNull OwnerChangeRequest request) {
        Instant at = discordTime(request.occurredAt());
        return guilds.changeOwner(guildId, request.ownerId(), at)
                // The gateway sending one change again while the first is under way: the loser finds it made and answers as a repeat.
                .onFailure(StorageFaults::lostRace).recoverWithUni(() -> guilds.changeOwner(guildId, request.ownerId(), at))
                .map(GuildView::of);
    }

    private Instant discordTime(Instant occurredAt) {
        if (occurredAt != null && occurredAt.isAfter(clock.instant().plus(DISCORD_CLOCK_AHEAD))) {
            throw ProblemException.badRequest("occurredAt " + occurredAt + " is in the future: when the event happened on Discord, at most "
                    + DISCORD_CLOCK_AHEAD.toMinutes() + " minutes ahead of the service's clock");
        }
        return occurredAt;
    }

    /** The guild itself was deleted on Discord: final, also for a guild whose install has not reached us (yet). */
    @DELETE
    public Uni<GuildView> delete(@PathParam("guildId") @DiscordId String guildId) {
        return guilds.delete(guildId)
                // A delete racing the guild's first install: the loser finds the winner's row and deletes it, or is a repeat.
                .onFailure(StorageFaults::lostRace).recoverWithUni(() -> guilds.delete(guildId))
                .map(GuildView::of);
    }

    @GET
    public Uni<GuildView> get(
            @PathParam("guildId") @DiscordId String guildId) {
        return guilds.get(guildId).map(GuildView::of);
    }
}
