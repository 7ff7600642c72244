package dev.umbra.billing.clock;

import dev.umbra.billing.settings.BillingSettings;
import dev.umbra.platform.web.ProblemException;
import dev.umbra.platform.web.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * Test-only: moves the service's clock forward (renewals and dunning in e2e tests and the local run).
 * Enabled by {@code umbra.billing.clock-control.enabled}, which only devstack and the test profile set;
 * elsewhere every call is a 404.
 */
@Path("/test-control/clock")
@RolesAllowed(Roles.ADMIN)
public class ClockControlResource {

    public record Advance(@NotNull Duration by) {
    }

    public record Now(Instant now) {
    }

    private final MovableClock clock;
    private final BillingSettings settings;

    public ClockControlResource(MovableClock clock, BillingSettings settings) {
        this.clock = clock;
        this.settings = settings;
    }

    @GET
    public Now now() {
        requireEnabled();
        return new Now(clock.instant());
    }

    @POST
    @Path("/advance")
    public Now advance(@Valid @NotNull Advance advance) {
        requireEnabled();
        if (advance.by().isNegative()) {
            throw ProblemException.unprocessable("the clock only moves forward");
        }
        return new Now(clock.advance(advance.by()));
    }

    private void requireEnabled() {
        if (!settings.clockControl().enabled()) {
            throw ProblemException.notFound("no such resource");
        }
    }
}
