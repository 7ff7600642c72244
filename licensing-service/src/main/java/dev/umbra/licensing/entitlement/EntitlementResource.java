package dev.umbra.licensing.entitlement;

import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.web.DiscordId;
import dev.umbra.platform.web.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/** Called by the bot before every command: may this guild use this feature? */
@Path("/guilds/{guildId}/entitlements")
@DatabaseGuard
public class EntitlementResource {

    private final EntitlementReader reader;

    public EntitlementResource(EntitlementReader reader) {
        this.reader = reader;
    }

    @GET
    @RolesAllowed(Roles.BOT)
    public Uni<GuildEntitlements> get(@PathParam("guildId") @DiscordId String guildId) {
        return reader.of(guildId);
    }
}
