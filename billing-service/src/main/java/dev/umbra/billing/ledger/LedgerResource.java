package dev.umbra.billing.ledger;

import dev.umbra.billing.subscription.SubscriptionService;
import dev.umbra.platform.web.Instants;
import dev.umbra.platform.web.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jboss.resteasy.reactive.RestResponse;

/**
 * A subscription's ledger, read on both time axes: {@code asOf} (actual time: what had happened by
 * then) and {@code knownAt} (record time: what billing knew by then), both ISO-8601 instants, now when
 * absent. Whoever may read the subscription reads its ledger; corrections are an operator's.
 *
 * <p>Rooted at "/" like the subscriptions' resource: a class path of its own ("subscriptions/{id}")
 * would take every request under a subscription away from that resource.
 */
@Path("/")
public class LedgerResource {

    public record CorrectionRequest(@NotNull UUID entryId, @NotNull Long amount, @NotBlank @Size(max = 150) String reason) {
    }

    public record EntryView(UUID id, EntryKind kind, long amount, String currency, UUID sourceEventId, UUID invoiceId, UUID reverses,
            String description, Instant occurredAt, Instant recordedAt, Instant bookedAt) {

        static EntryView of(LedgerEntry entry) {
            return new EntryView(entry.id(), entry.kind(), entry.amount(), entry.currency(), entry.sourceEventId(), entry.invoiceId(),
                    entry.reverses(), entry.description(), entry.occurredAt(), entry.recordedAt(), entry.bookedAt());
        }
    }

    public record LedgerView(UUID subscriptionId, Instant asOf, Instant knownAt, long balance, List<EntryView> entries) {
    }

    public record BalanceView(UUID subscriptionId, Instant asOf, Instant knownAt, long balance, String currency) {
    }

    public record CorrectionView(EntryView reversal, EntryView adjustment) {
    }

    private final LedgerService ledger;
    private final SubscriptionService subscriptions;
    private final Clock clock;
    private final JsonWebToken caller;

    public LedgerResource(LedgerService ledger, SubscriptionService subscriptions, Clock clock, JsonWebToken caller) {
        this.ledger = ledger;
        this.subscriptions = subscriptions;
        this.clock = clock;
        this.caller = caller;
    }

    @GET
    @Path("subscriptions/{id}/ledger")
    @RolesAllowed({Roles.BOT, Roles.USER, Roles.ADMIN})
    public Uni<LedgerView> entries(@PathParam("id") UUID id, @QueryParam("asOf") String asOf, @QueryParam("knownAt") String knownAt) {
        Instant now = clock.instant();
        Instant actual = instant("asOf", asOf, now);
        Instant record = instant("knownAt", knownAt, now);
        return readable(id).chain(() -> ledger.ledger(id)).map(read -> new LedgerView(id, actual, record, read.balance(actual, record),
                read.entries(actual, record).stream().map(EntryView::of).toList()));
    }

    @GET
    @Path("subscriptions/{id}/balance")
    @RolesAllowed({Roles.BOT, Roles.USER, Roles.ADMIN})
    public Uni<BalanceView> balance(@PathParam("id") UUID id, @QueryParam("asOf") String asOf, @QueryParam("knownAt") String knownAt) {
        Instant now = clock.instant();
        Instant actual = instant("asOf", asOf, now);
        Instant record = instant("knownAt", knownAt, now);
        return readable(id).chain(() -> ledger.ledger(id)).map(read -> new BalanceView(id, actual, record, read.balance(actual, record),
                read.entries().isEmpty() ? null : read.entries().get(0).currency()));
    }

    /** Corrects an entry to the right amount (signed as the ledger shows it): a reversal and an adjustment, 201. */
    @POST
    @Path("subscriptions/{id}/ledger/corrections")
    @RolesAllowed(Roles.ADMIN)
    public Uni<RestResponse<CorrectionView>> correct(@PathParam("id") UUID id, @Valid @NotNull CorrectionRequest request) {
        return readable(id).chain(() -> ledger.correct(id, request.entryId(), request.amount(), request.reason()))
                .map(correction -> RestResponse.status(RestResponse.Status.CREATED,
                        new CorrectionView(EntryView.of(correction.reversal()), EntryView.of(correction.adjustment()))));
    }

    /** 404 for an unknown subscription, 403 for another user's. */
    private Uni<Void> readable(UUID id) {
        return subscriptions.get(id, caller).replaceWithVoid();
    }

    private static Instant instant(String name, String value, Instant absent) {
        Instant given = Instants.parameter(name, value);
        return given == null ? absent : given;
    }
}
