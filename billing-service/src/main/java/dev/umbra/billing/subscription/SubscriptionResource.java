package dev.umbra.billing.subscription;

import dev.umbra.billing.access.Caller;
import dev.umbra.billing.gateway.ChargeOutcome;
import dev.umbra.billing.gateway.PaymentGatewaySettings;
import dev.umbra.billing.payment.PaymentStatus;
import dev.umbra.billing.web.GatewayUnavailableException;
import dev.umbra.platform.web.DiscordId;
import dev.umbra.platform.web.ProblemException;
import dev.umbra.platform.web.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jboss.resteasy.reactive.RestResponse;

/**
 * Subscriptions of guilds. The bot acts for anyone, a user only for themselves (403 otherwise), an
 * operator reads. The endpoints that charge are not under the database guard as a whole (a retry must
 * never call the gateway again): each of their transactions is.
 *
 * <p>How a charge is answered: DONE → 201 (200 for an upgrade); still IN_PROGRESS or no answer → 202,
 * settled later by the gateway's callback or the reconciliation job; declined → 402; refused by the
 * gateway → 422; never reached the gateway → 502, or 503 while its circuit is open, with Retry-After;
 * DONE for another amount than asked → 502, the payment FAILED and the money watched to be given back.
 */
@Path("/")
public class SubscriptionResource {

    public record SubscribeRequest(@NotNull @DiscordId String guildId, @NotNull UUID userId, @NotBlank @Size(max = 16) String planCode,
            @NotNull UUID billingKeyId) {
    }

    public record PlanChangeRequest(@NotBlank @Size(max = 16) String planCode) {
    }

    public record PaymentMethodRequest(@NotNull UUID billingKeyId) {
    }

    private final SubscriptionService subscriptions;
    private final PaymentGatewaySettings gateway;
    private final JsonWebToken caller;

    public SubscriptionResource(SubscriptionService subscriptions, PaymentGatewaySettings gateway, JsonWebToken caller) {
        this.subscriptions = subscriptions;
        this.gateway = gateway;
        this.caller = caller;
    }

    @POST
    @Path("subscriptions")
    @RolesAllowed({Roles.BOT, Roles.USER})
    public Uni<RestResponse<SubscriptionView>> subscribe(@Valid @NotNull SubscribeRequest request) {
        Caller.requireActingFor(caller, request.userId());
        return subscriptions.subscribe(new SubscriptionService.Subscribe(request.guildId(), request.userId(), request.planCode(),
                request.billingKeyId())).map(settled -> answer(settled, RestResponse.Status.CREATED));
    }

    @GET
    @Path("subscriptions/{id}")
    @RolesAllowed({Roles.BOT, Roles.USER, Roles.ADMIN})
    public Uni<SubscriptionView> get(@PathParam("id") UUID id) {
        return subscriptions.get(id, caller).map(SubscriptionView::of);
    }

    @GET
    @Path("guilds/{guildId}/subscriptions")
    @RolesAllowed({Roles.BOT, Roles.USER, Roles.ADMIN})
    public Uni<List<SubscriptionView>> ofGuild(@PathParam("guildId") @DiscordId String guildId) {
        return subscriptions.ofGuild(guildId, caller).map(all -> all.stream().map(SubscriptionView::of).toList());
    }

    @GET
    @Path("users/{userId}/subscriptions")
    @RolesAllowed({Roles.BOT, Roles.USER, Roles.ADMIN})
    public Uni<List<SubscriptionView>> ofUser(@PathParam("userId") UUID userId) {
        Caller.requireActingFor(caller, userId);
        return subscriptions.ofUser(userId).map(all -> all.stream().map(SubscriptionView::of).toList());
    }

    /** Cancel now (default) or at the end of the paid period ({@code ?at=period-end}). */
    @DELETE
    @Path("subscriptions/{id}")
    @RolesAllowed({Roles.BOT, Roles.USER})
    public Uni<SubscriptionView> cancel(@PathParam("id") UUID id,
            @QueryParam("at") @DefaultValue("now") @Pattern(regexp = "now|period-end") String at) {
        return subscriptions.cancel(id, "period-end".equals(at), caller).map(SubscriptionView::of);
    }

    /** A higher plan: upgrade now with a prorated charge. A lower one: downgrade from the next period. */
    @PUT
    @Path("subscriptions/{id}/plan")
    @RolesAllowed({Roles.BOT, Roles.USER})
    public Uni<RestResponse<SubscriptionView>> changePlan(@PathParam("id") UUID id, @Valid @NotNull PlanChangeRequest request) {
        return subscriptions.changePlan(id, request.planCode(), caller).map(change -> change.upgrade() == null
                ? RestResponse.ok(SubscriptionView.of(change.subscription()))
                : answer(change.upgrade(), RestResponse.Status.OK));
    }

    /** Another of the user's billing keys pays from now on; a subscription suspended because its key was deleted resumes. */
    @PUT
    @Path("subscriptions/{id}/billing-key")
    @RolesAllowed({Roles.BOT, Roles.USER})
    public Uni<SubscriptionView> payWith(@PathParam("id") UUID id, @Valid @NotNull PaymentMethodRequest request) {
        return subscriptions.payWith(id, request.billingKeyId(), caller).map(SubscriptionView::of);
    }

    private RestResponse<SubscriptionView> answer(Charges.Settled settled, RestResponse.Status whenPaid) {
        SubscriptionView view = SubscriptionView.of(settled.subscription());
        if (settled.paymentStatus() == PaymentStatus.SUCCEEDED) {
            return RestResponse.status(whenPaid, view);
        }
        if (settled.paymentStatus() == PaymentStatus.IN_PROGRESS) {
            return RestResponse.status(RestResponse.Status.ACCEPTED, view);
        }
        ChargeOutcome outcome = settled.outcome();
        if (outcome instanceof ChargeOutcome.SurelyNotArrived notArrived) {
            throw new GatewayUnavailableException(notArrived.problem(), gateway.payment().circuit().delay());
        }
        if (outcome instanceof ChargeOutcome.Rejected rejected) {
            throw ProblemException.unprocessable("the payment gateway refused the charge (" + rejected.code() + "); nothing was charged");
        }
        if (outcome instanceof ChargeOutcome.Accepted accepted && "DONE".equals(accepted.status())) {
            throw new ProblemException(502, "Bad Gateway", "the payment gateway charged another amount than asked; the charge failed and "
                    + "what was taken is given back");
        }
        throw new ProblemException(402, "Payment Required", "the card was declined; nothing was charged");
    }
}
