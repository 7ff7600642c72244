package dev.umbra.guild.webjoin;

import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.storage.StorageFaults;
import dev.umbra.platform.web.DiscordId;
import dev.umbra.platform.web.Roles;
import dev.umbra.platform.web.SignedInUser;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import java.time.Instant;
import org.eclipse.microprofile.jwt.JsonWebToken;

/** A guild's owner publishes (or changes) the guild's web-join link. */
@Path("/guilds/{guildId}/web-join")
@RolesAllowed(Roles.USER)
@DatabaseGuard
public class WebJoinLinkResource {

    public record SlugRequest(@NotNull @Pattern(regexp = WebJoinLink.SLUG,
            message = "must be 3 to 32 lower-case letters, digits or inner dashes") String slug) {
    }

    public record LinkView(String slug, String guildId, Instant createdAt) {
    }

    private final WebJoinService webJoin;
    private final JsonWebToken caller;

    public WebJoinLinkResource(WebJoinService webJoin, JsonWebToken caller) {
        this.webJoin = webJoin;
        this.caller = caller;
    }

    /** 403 unless the caller owns the guild; 409 if another guild has the slug. */
    @PUT
    public Uni<LinkView> claimSlug(@PathParam("guildId") @DiscordId String guildId, @Valid @NotNull SlugRequest request) {
        String owner = SignedInUser.discordUserId(caller);
        return webJoin.claimSlug(guildId, request.slug(), owner)
                // The same claim sent twice at once (a double click): the loser finds the winner's link and answers it, or a 409 if another guild won
                .onFailure(StorageFaults::lostRace).recoverWithUni(() -> webJoin.claimSlug(guildId, request.slug(), owner))
                .map(link -> new LinkView(link.slug, link.guildId, link.createdAt));
    }
}
