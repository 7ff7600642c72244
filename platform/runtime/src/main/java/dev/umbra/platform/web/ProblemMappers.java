package dev.umbra.platform.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import dev.umbra.platform.storage.DatabaseSettings;
import dev.umbra.platform.storage.DatabaseTimeoutException;
import dev.umbra.platform.storage.StorageFaults;
import io.smallrye.mutiny.CompositeException;
import io.vertx.pgclient.PgException;
import jakarta.persistence.PersistenceException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.hibernate.HibernateException;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Every error a service answers is {@code application/problem+json}: 400 for malformed or invalid
 * input, 404/409/422 from {@link ProblemException}, 409 for a write that lost a race, 503 (with
 * Retry-After) when the database cannot be reached, does not answer in time or its circuit is open, and a bare 500 that reveals nothing for anything else.
 */
public class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);

    private final DatabaseSettings database;

    public ProblemMappers(DatabaseSettings database) {
        this.database = database;
    }

    @ServerExceptionMapper
    public Response problem(ProblemException e, UriInfo uri) {
        return Problem.response(e.status(), e.title(), e.getMessage(), uri.getPath(), List.of());
    }

    @ServerExceptionMapper
    public Response invalid(ConstraintViolationException e, UriInfo uri) {
        List<Problem.Violation> violations = e.getConstraintViolations().stream()
                .map(v -> new Problem.Violation(field(v), v.getMessage()))
                .sorted((a, b) -> a.field().compareTo(b.field()))
                .toList();
        return Problem.response(400, "Bad Request", "the request is not valid", uri.getPath(), violations);
    }

    @ServerExceptionMapper
    public Response unreadable(JsonProcessingException e, UriInfo uri) {
        return Problem.response(400, "Bad Request", "the request body is not valid JSON for this endpoint", uri.getPath(), List.of());
    }

    /**
     * A body of the wrong shape (an object for a string, an unknown enum constant): quarkus-rest-jackson
     * maps this subtype itself to a bare 400, and a mapper of the supertype does not win over it.
     */
    @ServerExceptionMapper
    public Response mismatched(MismatchedInputException e, UriInfo uri) {
        return unreadable(e, uri);
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e, UriInfo uri) {
        Response.StatusType status = e.getResponse().getStatusInfo();
        if (status.getStatusCode() == 400 && e.getCause() instanceof JsonProcessingException) {
            return unreadable((JsonProcessingException) e.getCause(), uri);
        }
        return Problem.response(status.getStatusCode(), status.getReasonPhrase(), e.getMessage(), uri.getPath(), List.of());
    }

    @ServerExceptionMapper
    public Response circuitOpen(CircuitBreakerOpenException e, UriInfo uri) {
        return unavailable(uri);
    }

    @ServerExceptionMapper
    public Response databaseTimedOut(DatabaseTimeoutException e, UriInfo uri) {
        LOG.warnf("database did not answer on %s: %s", uri.getPath(), e.getMessage());
        long retryAfter = Math.max(1, (database.circuit().delay().toMillis() + 999) / 1000);
        return Response.fromResponse(Problem.response(503, "Service Unavailable",
                "the service's database did not answer in time; the request may still take effect, so read the resource before repeating it",
                uri.getPath(), List.of())).header("Retry-After", Long.toString(retryAfter)).build();
    }

    // Every IOException (a refused connection, and one the database resets while it restarts): unmapped, Quarkus
    // answers it with a 500 that it logs at DEBUG only, taking it for the client's broken connection.
    @ServerExceptionMapper({CompositeException.class, HibernateException.class, PersistenceException.class, PgException.class, IOException.class,
            TimeoutException.class, io.vertx.core.VertxException.class})
    public Response storage(Exception e, UriInfo uri) {
        if (StorageFaults.lostRace(e)) {
            return Problem.response(409, "Conflict", "the resource changed or already exists; read it again",
                    uri.getPath(), List.of());
        }
        if (StorageFaults.databaseAway(e)) {
            LOG.warnf("database unavailable on %s: %s", uri.getPath(), e.toString());
            return unavailable(uri);
        }
        if (StorageFaults.isTransient(e)) {
            // load shed by a busy pool or a lost race the retries did not win: the 503s count it, no log per request
            LOG.debugf("database busy on %s: %s", uri.getPath(), e.toString());
            return busy(uri);
        }
        LOG.errorf(e, "unexpected storage error on %s", uri.getPath());
        return Problem.response(500, "Internal Server Error", "unexpected error", uri.getPath(), List.of());
    }

    private Response unavailable(UriInfo uri) {
        long retryAfter = Math.max(1, (database.circuit().delay().toMillis() + 999) / 1000);
        return Response.fromResponse(Problem.response(503, "Service Unavailable",
                "the service cannot reach its database; try again shortly", uri.getPath(), List.of()))
                .header("Retry-After", Long.toString(retryAfter)).build();
    }

    private Response busy(UriInfo uri) {
        return Response.fromResponse(Problem.response(503, "Service Unavailable", "the service is busy; try again shortly", uri.getPath(),
                List.of())).header("Retry-After", "1").build();
    }

    private static String field(ConstraintViolation<?> violation) {
        String path = violation.getPropertyPath().toString();
        int dot = path.indexOf('.');
        return dot < 0 ? path : path.substring(dot + 1);
    }
}
