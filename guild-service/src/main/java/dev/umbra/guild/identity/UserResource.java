package dev.umbra.guild.identity;

import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.storage.StorageFaults;
import dev.umbra.platform.web.DiscordId;
import dev.umbra.platform.web.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.util.UUID;
import org.jboss.resteasy.reactive.RestResponse;

/** Called by the dashboard's sign-in flow after Discord OAuth succeeded. */
@Path("/users")
@RolesAllowed(Roles.BOT)
@DatabaseGuard
public class UserResource {

    public record RegistrationRequest(@NotNull @DiscordId String discordUserId) {
    }

    public record UserView(UUID userId, String discordUserId, Instant registeredAt) {
    }

    public record SessionView(UUID userId, String token, Instant expiresAt) {
        @Override
        public String toString() {
            return "SessionView[user " + userId + "]";
        }
    }

    private final IdentityService identity;

    public UserResource(IdentityService identity) {
        this.identity = identity;
    }

    /** 201 for a new user, 200 with the same user for a Discord account already registered. */
    @POST
    public Uni<RestResponse<UserView>> register(@Valid @NotNull RegistrationRequest request) {
        return identity.register(request.discordUserId())
                // Two first registrations racing: the loser finds the winner's user and answers as a repeat.
                .onFailure(StorageFaults::lostRace).recoverWithUni(() -> identity.register(request.discordUserId()))
                .map(registration -> RestResponse.status(
                registration.created() ? Response.Status.CREATED : Response.Status.OK,
                new UserView(registration.user().userId, registration.user().discordUserId, registration.user().registeredAt)));
    }

    /** A new session; its token is in this answer and nowhere else. */
    @POST
    @Path("/{userId}/sessions")
    public Uni<RestResponse<SessionView>> createSession(@PathParam("userId") @org.hibernate.validator.constraints.UUID String userId) {
        return identity.createSession(UUID.fromString(userId)).map(session -> RestResponse.status(Response.Status.CREATED,
                new SessionView(session.userId(), session.token(), session.expiresAt())));
    }
}
