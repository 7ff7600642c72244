package dev.umbra.recovery.discord;

import dev.umbra.platform.web.Problem;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** A request that needed Discord now: Discord down, rate-limiting or its circuit open is 503 (with Retry-After when known), Discord refusing 502. */
public class DiscordProblemMappers {

    @ServerExceptionMapper
    public Response unavailable(DiscordFault e, UriInfo uri) {
        Response.ResponseBuilder answer = Response.status(503).type(Problem.MEDIA_TYPE)
                .entity(new Problem("about:blank", "Service Unavailable", 503, e.getMessage(), uri.getPath(), List.of()));
        if (e.retryAfter() != null) {
            answer.header("Retry-After", Long.toString(Math.max(1, (e.retryAfter().toMillis() + 999) / 1000)));
        }
        return answer.build();
    }

    @ServerExceptionMapper
    public Response refused(DiscordRejection e, UriInfo uri) {
        return Response.status(502).type(Problem.MEDIA_TYPE)
                .entity(new Problem("about:blank", "Bad Gateway", 502, e.getMessage(), uri.getPath(), List.of())).build();
    }
}
