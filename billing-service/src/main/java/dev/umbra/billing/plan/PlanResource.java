package dev.umbra.billing.plan;

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
    public List<PlanView> list() {
        return PlanCatalogue.all().stream()
                .map(p -> new PlanView(p.code(), p.name(), p.monthlyPrice(), p.currency()))
                .toList();
    }
}
