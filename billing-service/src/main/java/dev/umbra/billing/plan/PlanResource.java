package dev.umbra.billing.plan;

import io.quarkus.hibernate.reactive.panache.common.WithSession;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.util.List;

/** The public plan catalogue, cheapest first. */
@Path("/plans")
public class PlanResource {

    public record PlanView(String code, String name, long monthlyPrice, String currency) {
    }

    @GET
    @PermitAll
    @WithSession
    public Uni<List<PlanView>> list() {
        return PlanEntry.<PlanEntry>listAll(io.quarkus.panache.common.Sort.by("rank"))
                .map(plans -> plans.stream().map(p -> new PlanView(p.code, p.name, p.monthlyPrice, p.currency)).toList());
    }
}
