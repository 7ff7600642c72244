package dev.umbra.licensing.license;

import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.web.DiscordId;
import dev.umbra.platform.web.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

@Path("/guilds/{guildId}/license")
@DatabaseGuard
public class LicenseResource {

    private final LicenseService licenses;

    public LicenseResource(LicenseService licenses) {
        this.licenses = licenses;
    }

    @GET
    @RolesAllowed({Roles.BOT, Roles.USER, Roles.ADMIN})
    public Uni<LicenseView> get(@PathParam("guildId") @DiscordId String guildId) {
        return licenses.ofGuild(guildId).map(LicenseView::of);
    }
}
