package dev.umbra.billing.web;

import dev.umbra.billing.invoice.RefundRejectedException;
import dev.umbra.billing.ledger.CorrectionRejectedException;
import dev.umbra.billing.plan.UnknownPlanException;
import dev.umbra.billing.subscription.IllegalTransitionException;
import dev.umbra.billing.subscription.PlanChangeRejectedException;
import dev.umbra.platform.web.Problem;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** The billing rules' refusals as problem+json: a change the state does not allow is 409, a malformed one 422,
 * as are a refund or a ledger correction the rules refuse. */
public class BillingProblemMappers {

    @ServerExceptionMapper
    public Response unknownPlan(UnknownPlanException e, UriInfo uri) {
        return problem(422, "Unprocessable Content", e.getMessage(), uri);
    }

    @ServerExceptionMapper
    public Response planChangeRejected(PlanChangeRejectedException e, UriInfo uri) {
        return problem(422, "Unprocessable Content", e.getMessage(), uri);
    }

    @ServerExceptionMapper
    public Response refundRejected(RefundRejectedException e, UriInfo uri) {
        return problem(422, "Unprocessable Content", e.getMessage(), uri);
    }

    @ServerExceptionMapper
    public Response correctionRejected(CorrectionRejectedException e, UriInfo uri) {
        return problem(422, "Unprocessable Content", e.getMessage(), uri);
    }

    @ServerExceptionMapper
    public Response illegalTransition(IllegalTransitionException e, UriInfo uri) {
        return problem(409, "Conflict", e.getMessage(), uri);
    }

    @ServerExceptionMapper
    public Response gatewayUnavailable(GatewayUnavailableException e, UriInfo uri) {
        long seconds = Math.max(1, (e.retryAfter().toMillis() + 999) / 1000);
        return Response.fromResponse(problem(e.problem().status(), e.problem().title(), e.problem().getMessage(), uri))
                .header("Retry-After", Long.toString(seconds)).build();
    }

    private static Response problem(int status, String title, String detail, UriInfo uri) {
        return Response.status(status).type(Problem.MEDIA_TYPE)
                .entity(new Problem("about:blank", title, status, detail, uri.getPath(), List.of())).build();
    }
}
