package dev.umbra.billing.invoice;

import dev.umbra.billing.access.Caller;
import dev.umbra.billing.gateway.CancelOutcome;
import dev.umbra.billing.gateway.PaymentGatewaySettings;
import dev.umbra.billing.web.GatewayUnavailableException;
import dev.umbra.platform.web.ProblemException;
import dev.umbra.platform.web.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jboss.resteasy.reactive.RestResponse;

/**
 * Invoices (the bot and operators read any, a user their own) and refunds (operators only). A refund
 * is answered by its state: SUCCEEDED 201, IN_PROGRESS 202 (the gateway's answer was uncertain; the
 * reconciliation job settles it), FAILED 422; never sent 502, or 503 while the circuit is open, with
 * Retry-After. A request repeated with the same {@code Idempotency-Key} answers the first refund's state.
 */
@Path("/")
public class InvoiceResource {

    public record RefundRequest(@NotNull @Positive Long amount, @NotBlank @Size(max = 200) String reason) {
    }

    private final Invoices invoices;
    private final Refunds refunds;
    private final PaymentGatewaySettings gateway;
    private final JsonWebToken caller;

    public InvoiceResource(Invoices invoices, Refunds refunds, PaymentGatewaySettings gateway, JsonWebToken caller) {
        this.invoices = invoices;
        this.refunds = refunds;
        this.gateway = gateway;
        this.caller = caller;
    }

    @GET
    @Path("invoices/{id}")
    @RolesAllowed({Roles.BOT, Roles.USER, Roles.ADMIN})
    public Uni<InvoiceView> get(@PathParam("id") UUID id) {
        return invoices.get(id, caller).map(InvoiceView::of);
    }

    @GET
    @Path("subscriptions/{id}/invoices")
    @RolesAllowed({Roles.BOT, Roles.USER, Roles.ADMIN})
    public Uni<List<InvoiceView>> ofSubscription(@PathParam("id") UUID subscriptionId) {
        return invoices.ofSubscription(subscriptionId, caller).map(all -> all.stream().map(InvoiceView::of).toList());
    }

    @GET
    @Path("users/{userId}/invoices")
    @RolesAllowed({Roles.BOT, Roles.USER, Roles.ADMIN})
    public Uni<List<InvoiceView>> ofUser(@PathParam("userId") UUID userId) {
        Caller.requireActingFor(caller, userId);
        return invoices.ofUser(userId).map(all -> all.stream().map(InvoiceView::of).toList());
    }

    @POST
    @Path("invoices/{id}/refunds")
    @RolesAllowed(Roles.ADMIN)
    public Uni<RestResponse<RefundView>> refund(@PathParam("id") UUID invoiceId,
            @HeaderParam("Idempotency-Key") @NotBlank @Size(max = 128) @Pattern(regexp = "[\\x21-\\x7e]+") String idempotencyKey,
            @Valid @NotNull RefundRequest request) {
        return refunds.refund(invoiceId, request.amount(), request.reason(), idempotencyKey).map(this::answer);
    }

    private RestResponse<RefundView> answer(Refunds.Requested requested) {
        if (requested.rolledBack()) {
            CancelOutcome.SurelyNotArrived notArrived = (CancelOutcome.SurelyNotArrived) requested.outcome();
            throw new GatewayUnavailableException(notArrived.problem(), gateway.payment().circuit().delay());
        }
        Refund refund = requested.refund();
        return switch (refund.status) {
            case SUCCEEDED -> RestResponse.status(RestResponse.Status.CREATED, RefundView.of(refund));
            case SCHEDULED, IN_PROGRESS -> RestResponse.status(RestResponse.Status.ACCEPTED, RefundView.of(refund));
            case FAILED -> {
                if (requested.outcome() instanceof CancelOutcome.SurelyNotArrived) {
                    // answered 500/429: failed and watched here, so a retry must be a refund of its own, under a new key
                    throw new GatewayUnavailableException(new ProblemException(502, "Bad Gateway", "the payment gateway answered that it "
                            + "did not take refund " + refund.id + ": it is FAILED, and watched in case the gateway gave the money back "
                            + "after all; to try again, send the request with a new Idempotency-Key"), gateway.payment().circuit().delay());
                }
                throw ProblemException.unprocessable("refund " + refund.id + " failed, nothing was given back: " + refund.failureMessage);
            }
        };
    }
}
