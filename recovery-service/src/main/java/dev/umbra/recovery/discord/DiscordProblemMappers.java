package dev.umbra.recovery.discord;

import dev.umbra.platform.web.Problem;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * A request that needed Discord now: Discord down, rate-limiting or its circuit open is 503 (with Retry-After when known),
 * Discord refusing 502. The detail is in our words: Discord's own error text and the transport's (hosts, ports) go to the log only.
 */
public class DiscordProblemMappers {

    private static final Logger LOG = Logger.getLogger(DiscordProblemMappers.class);

    @ServerExceptionMapper
    public Response unavailable(DiscordFault e, UriInfo uri) {
        LOG.infof("%s answered 503: %s", uri.getPath(), e.getMessage());
        String detail = e.retryAfter() != null ? "Discord is rate-limiting the bot: try again after Retry-After"
                : "Discord is unavailable or did not answer: try again later";
        Response.ResponseBuilder answer = Response.status(503).type(Problem.MEDIA_TYPE)
                .entity(new Problem("about:blank", "Service Unavailable", 503, detail, uri.getPath(), List.of()));
        if (e.retryAfter() != null) {
            answer.header("Retry-After", Long.toString(Math.max(1, (e.retryAfter().toMillis() + 999) / 1000)));
        }
        return answer.build();
    }

    @ServerExceptionMapper
    public Response refused(DiscordRejection e, UriInfo uri) {
        LOG.infof("%s answered 502: %s", uri.getPath(), e.getMessage());
        return Response.status(502).type(Problem.MEDIA_TYPE)
                .entity(new Problem("about:blank", "Bad Gateway", 502, e.account(), uri.getPath(), List.of())).build();
    }
}
