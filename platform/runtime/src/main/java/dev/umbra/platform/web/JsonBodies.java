package dev.umbra.platform.web;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Every request body of an Umbra API is JSON. A body of another media type (text/plain, XML, a form)
 * answers 415 problem+json before any endpoint reads it, instead of a misleading 400 about its content.
 */
public class JsonBodies {

    @ServerRequestFilter(preMatching = true)
    public Response requireJson(ContainerRequestContext request) {
        boolean hasBody = request.getLength() > 0 || request.getHeaderString("Transfer-Encoding") != null;
        if (!hasBody) {
            return null;
        }
        MediaType type = request.getMediaType();
        if (type != null && ("json".equals(type.getSubtype()) || type.getSubtype().endsWith("+json"))) {
            return null;
        }
        return Problem.response(415, "Unsupported Media Type", "the request body must be application/json",
                request.getUriInfo().getPath(), List.of());
    }
}
