package dev.umbra.audit.replay;

import dev.umbra.platform.web.ProblemException;
import dev.umbra.platform.web.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.List;
import java.util.UUID;

/** Operators re-publish stored events to their topics: one aggregate, an aggregate type or a range of occurred_at. */
@Path("/audit/replays")
@RolesAllowed(Roles.ADMIN)
public class ReplayResource {

    private final Replays replays;

    public ReplayResource(Replays replays) {
        this.replays = replays;
    }

    /** 202 and the queued replay; 400 for a scope that is not one, 409 while the same scope is replayed, 422 when it holds no event. */
    @POST
    public Uni<Response> request(ReplayScope.Request request) {
        ReplayScope scope;
        try {
            scope = ReplayScope.of(request);
        } catch (ReplayScope.InvalidScopeException e) {
            throw ProblemException.badRequest(e.getMessage());
        }
        return replays.request(scope)
                .map(replay -> Response.accepted(replay).location(URI.create("/audit/replays/" + replay.id())).build());
    }

    @GET
    public Uni<List<ReplayView>> recent() {
        return replays.recent(50);
    }

    @GET
    @Path("{id}")
    public Uni<ReplayView> get(@PathParam("id") String id) {
        return replays.get(id(id));
    }

    /** Cancels a queued or running replay: it stops after the batch in flight. */
    @DELETE
    @Path("{id}")
    public Uni<ReplayView> cancel(@PathParam("id") String id) {
        return replays.cancel(id(id));
    }

    private static UUID id(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw ProblemException.notFound("no replay " + id);
        }
    }
}
