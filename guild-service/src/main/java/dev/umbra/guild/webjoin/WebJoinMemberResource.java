package dev.umbra.guild.webjoin;

import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.storage.StorageFaults;
import dev.umbra.platform.web.Roles;
import dev.umbra.platform.web.SignedInUser;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.util.UUID;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jboss.resteasy.reactive.RestResponse;

/** Someone signed in with Discord joins the guild behind a web-join link. */
@Path("/web-join/{slug}/members")
@RolesAllowed(Roles.USER)
@DatabaseGuard
public class WebJoinMemberResource {

    public record MemberView(UUID memberId, String guildId, String discordUserId, Instant joinedAt) {
    }

    private final WebJoinService webJoin;
    private final JsonWebToken caller;

    public WebJoinMemberResource(WebJoinService webJoin, JsonWebToken caller) {
        this.webJoin = webJoin;
        this.caller = caller;
    }

    /** 201 for a new member, 200 for someone who already joined, 404 for an unknown link. */
    @POST
    public Uni<RestResponse<MemberView>> join(@PathParam("slug") @Pattern(regexp = WebJoinLink.SLUG) String slug) {
        String discordId = SignedInUser.discordUserId(caller);
        return webJoin.join(slug, discordId)
                // Two first joins racing: the loser finds the winner's membership and answers as a repeat.
                .onFailure(StorageFaults::lostRace).recoverWithUni(() -> webJoin.join(slug, discordId))
                .map(joined -> RestResponse.status(
                joined.created() ? Response.Status.CREATED : Response.Status.OK,
                new MemberView(joined.member().memberId, joined.member().guildId, joined.member().discordUserId, joined.member().joinedAt)));
    }
}
