package dev.umbra.licensing.license;

import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.web.DiscordId;
import dev.umbra.platform.web.Roles;
import dev.umbra.platform.web.SignedInUser;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import org.eclipse.microprofile.jwt.JsonWebToken;

@Path("/guilds/{guildId}/license")
@DatabaseGuard
public class LicenseResource {

    private final LicenseService licenses;
    private final GuildOwners owners;
    private final SecurityIdentity identity;
    private final JsonWebToken token;

    public LicenseResource(LicenseService licenses, GuildOwners owners, SecurityIdentity identity, JsonWebToken token) {
        this.licenses = licenses;
        this.owners = owners;
        this.identity = identity;
        this.token = token;
    }

    /** The bot and admins read any license; a user only the license of a guild they own (403 otherwise, known or not). */
    @GET
    @RolesAllowed({Roles.BOT, Roles.USER, Roles.ADMIN})
    public Uni<LicenseView> get(@PathParam("guildId") @DiscordId String guildId) {
        Uni<Void> allowed = identity.hasRole(Roles.BOT) || identity.hasRole(Roles.ADMIN)
                ? Uni.createFrom().voidItem()
                : owners.requireOwner(guildId, SignedInUser.discordUserId(token));
        return allowed.chain(() -> licenses.ofGuild(guildId)).map(LicenseView::of);
    }
}
