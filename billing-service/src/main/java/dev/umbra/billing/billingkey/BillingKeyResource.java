package dev.umbra.billing.billingkey;

import dev.umbra.billing.access.Caller;
import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.web.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jboss.resteasy.reactive.RestResponse;

/** A user's billing keys. A user acts only for themselves; the bot for anyone; an operator may read. */
@Path("/users/{userId}/billing-keys")
public class BillingKeyResource {

    /** The auth key of the gateway's card registration; used once, never stored or logged. */
    public record IssueRequest(@NotBlank @Size(max = 300) String authKey) {

        @Override
        public String toString() {
            return "IssueRequest[authKey=****]";
        }
    }

    private final BillingKeyService keys;
    private final JsonWebToken caller;

    public BillingKeyResource(BillingKeyService keys, JsonWebToken caller) {
        this.keys = keys;
        this.caller = caller;
    }

    /** The gateway call is not under the database guard: a retry must never call it again. */
    @POST
    @RolesAllowed({Roles.BOT, Roles.USER})
    public Uni<RestResponse<BillingKeyView>> issue(@PathParam("userId") UUID userId, @Valid @NotNull IssueRequest request) {
        Caller.requireActingFor(caller, userId);
        return keys.issue(userId, request.authKey()).map(key -> RestResponse.status(RestResponse.Status.CREATED, BillingKeyView.of(key)));
    }

    @GET
    @RolesAllowed({Roles.BOT, Roles.USER, Roles.ADMIN})
    @DatabaseGuard
    public Uni<List<BillingKeyView>> list(@PathParam("userId") UUID userId) {
        Caller.requireActingFor(caller, userId);
        return keys.list(userId).map(all -> all.stream().map(BillingKeyView::of).toList());
    }

    @DELETE
    @Path("/{id}")
    @RolesAllowed({Roles.BOT, Roles.USER})
    @DatabaseGuard
    public Uni<RestResponse<Void>> delete(@PathParam("userId") UUID userId, @PathParam("id") UUID id) {
        Caller.requireActingFor(caller, userId);
        return keys.delete(userId, id).map(done -> RestResponse.noContent());
    }
}
