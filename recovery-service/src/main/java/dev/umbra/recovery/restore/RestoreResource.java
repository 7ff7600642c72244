package dev.umbra.recovery.restore;

import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.web.DiscordId;
import dev.umbra.platform.web.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import java.util.UUID;
import org.jboss.resteasy.reactive.RestResponse;

/** Restores of a guild: the bot asks for one (202: it runs in the background), the bot and operators follow its progress. */
@Path("/guilds/{guildId}/restores")
@DatabaseGuard
public class RestoreResource {

    public record RestoreRequest(@NotNull UUID snapshotId) {
    }

    private final RestoreService restores;

    public RestoreResource(RestoreService restores) {
        this.restores = restores;
    }

    @POST
    @RolesAllowed(Roles.BOT)
    public Uni<RestResponse<RestoreView>> request(@PathParam("guildId") @DiscordId String guildId, @Valid @NotNull RestoreRequest request) {
        return restores.request(guildId, request.snapshotId()).map(job -> RestResponse.status(RestResponse.Status.ACCEPTED, RestoreView.of(job)));
    }

    @GET
    @Path("{restoreId}")
    @RolesAllowed({Roles.BOT, Roles.ADMIN})
    public Uni<RestoreView> get(@PathParam("guildId") @DiscordId String guildId, @PathParam("restoreId") UUID restoreId) {
        return restores.get(guildId, restoreId).map(RestoreView::of);
    }
}
