package dev.umbra.platform.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * 401 and 403 as {@code application/problem+json}, like every other error. A request without a
 * token, or whose role does not fit, is refused inside the REST layer (the mappers below). A token
 * that fails verification (bad signature, expired, wrong issuer or audience) is refused earlier, by
 * proactive authentication in the HTTP layer, which answers 401 with its challenge and an empty body:
 * the route failure handler fills that body in. The detail never repeats the token or why exactly it
 * failed, which would help someone forging one.
 */
@ApplicationScoped
public class AccessProblems {

    private static final String BEARER_CHALLENGE = "Bearer";
    private static final String UNAUTHENTICATED = "a valid bearer token is required";

    private final ObjectMapper json;

    public AccessProblems(ObjectMapper json) {
        this.json = json;
    }

    @ServerExceptionMapper
    public Response unauthorized(UnauthorizedException e, UriInfo uri) {
        return unauthenticated(uri.getPath());
    }

    @ServerExceptionMapper
    public Response authenticationFailed(AuthenticationFailedException e, UriInfo uri) {
        return unauthenticated(uri.getPath());
    }

    @ServerExceptionMapper
    public Response forbidden(ForbiddenException e, UriInfo uri) {
        return Problem.response(403, "Forbidden", "the token's role may not do this", uri.getPath(), List.of());
    }

    void onRouter(@Observes Router router) {
        router.route().failureHandler(this::failedAuthentication);
    }

    private void failedAuthentication(RoutingContext context) {
        if (!(context.failure() instanceof AuthenticationFailedException) || context.response().ended()) {
            context.next();
            return;
        }
        Problem problem = new Problem("about:blank", "Unauthorized", 401, UNAUTHENTICATED, context.normalizedPath(), List.of());
        String body;
        try {
            body = json.writeValueAsString(problem);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        context.response().setStatusCode(401);
        if (!context.response().headers().contains("WWW-Authenticate")) {
            context.response().putHeader("WWW-Authenticate", BEARER_CHALLENGE);
        }
        context.response().putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE).end(body);
    }

    private static Response unauthenticated(String path) {
        return Response.fromResponse(Problem.response(401, "Unauthorized", UNAUTHENTICATED, path, List.of()))
                .header("WWW-Authenticate", BEARER_CHALLENGE).build();
    }
}
