package dev.umbra.recovery.member;

import dev.umbra.platform.web.DiscordId;
import dev.umbra.platform.web.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import java.util.UUID;

/**
 * The bot restores a member's roles from a snapshot. Discord down (or its circuit open) is 503 and
 * Discord refusing 502, both problem+json (RecoveryProblemMappers).
 */
@Path("/guilds/{guildId}/members/{memberId}/restore")
public class MemberRestoreResource {

    public record MemberRestoreRequest(@NotNull UUID snapshotId) {
    }

    private final MemberRestores restores;

    public MemberRestoreResource(MemberRestores restores) {
        this.restores = restores;
    }

    @POST
    @RolesAllowed(Roles.BOT)
    public Uni<MemberRestores.Restored> restore(@PathParam("guildId") @DiscordId String guildId, @PathParam("memberId") @DiscordId String memberId,
            @Valid @NotNull MemberRestoreRequest request) {
        return restores.restore(guildId, memberId, request.snapshotId());
    }
}
