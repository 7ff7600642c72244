package dev.umbra.platform.web;

import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.ws.rs.core.Response;
import java.util.List;

/** RFC 9457 problem details. */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Problem(String type, String title, int status, String detail, String instance, List<Violation> violations) {

    public static final String MEDIA_TYPE = "application/problem+json";

    public record Violation(String field, String message) {
    }

    static Response response(int status, String title, String detail, String instance, List<Violation> violations) {
        return Response.status(status)
                .type(MEDIA_TYPE)
                .entity(new Problem("about:blank", title, status, detail, instance, violations))
                .build();
    }
}
