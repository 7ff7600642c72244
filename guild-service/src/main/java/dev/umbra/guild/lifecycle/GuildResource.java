package dev.umbra.guild.lifecycle;

import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.storage.StorageFaults;
import dev.umbra.platform.web.DiscordId;
import dev.umbra.platform.web.Instants;
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
import java.time.Instant;
import org.jboss.resteasy.reactive.RestResponse;

/** Calls of the Discord bot gateway about a guild's lifecycle. */
@Path("/guilds/{guildId}")
@RolesAllowed(Roles.BOT)
@DatabaseGuard
public class GuildResource {

    private final GuildService guilds;

    public GuildResource(GuildService guilds) {
        this.guilds = guilds;
    }

    /** The bot was added to the guild: 201 the first time, 200 for a repeat or a reinstall after a kick. */
    @POST
    @Path("/installation")
    public Uni<RestResponse<GuildView>> install(
            @PathParam("guildId") @DiscordId String guildId,
            @Valid @NotNull InstallationRequest request) {
        return guilds.install(guildId, request.installerUserId(), request.occurredAt())
                // Two first installs racing: the loser finds the winner's guild and answers as a repeat.
                .onFailure(StorageFaults::lostRace).recoverWithUni(() -> guilds.install(guildId, request.installerUserId(), request.occurredAt()))
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
        Instant at = discordTime(occurredAt);
        return guilds.kick(guildId, at)
                // The gateway delivering one kick twice at once: the loser finds the guild kicked and answers as a repeat.
                .onFailure(StorageFaults::lostRace).recoverWithUni(() -> guilds.kick(guildId, at))
                .map(GuildView::of);
    }

    @PUT
    @Path("/owner")
    public Uni<GuildView> changeOwner(@PathParam("guildId") @DiscordId String guildId, @Valid @NotNull OwnerChangeRequest request) {
        return guilds.changeOwner(guildId, request.ownerId(), request.occurredAt())
                // The gateway sending one change again while the first is under way: the loser finds it made and answers as a repeat.
                .onFailure(StorageFaults::lostRace).recoverWithUni(() -> guilds.changeOwner(guildId, request.ownerId(), request.occurredAt()))
                .map(GuildView::of);
    }

    private static Instant discordTime(String value) {
        return Instants.parameter("occurredAt", value);
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
