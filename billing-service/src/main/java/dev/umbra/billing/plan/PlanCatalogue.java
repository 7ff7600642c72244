package dev.umbra.billing.plan;

import java.util.Comparator;
import java.util.List;

/**
 * The plans a guild can be on, as data. The {@code plan} table of the first migration holds the same
 * rows so that stored subscriptions can reference a plan code; {@code PlanCatalogueTest} keeps the two equal.
 */
public final class PlanCatalogue {

    public static final String KRW = "KRW";
    public static final Plan FREE = new Plan("FREE", "Free", 0, KRW, 0);
    public static final Plan PRO = new Plan("PRO", "Pro", 9_900, KRW, 1);
    public static final Plan PREMIUM = new Plan("PREMIUM", "Premium", 19_900, KRW, 2);

    private static final List<Plan> PLANS = List.of(FREE, PRO, PREMIUM).stream()
            .sorted(Comparator.comparingInt(Plan::rank))
            .toList();

    private PlanCatalogue() {
    }

    /** Every plan, cheapest first. */
    public static List<Plan> all() {
        return PLANS;
    }

    public static Plan of(String code) {
        for (Plan plan : PLANS) {
            if (plan.code().equals(code)) {
                return plan;
            }
        }
        throw new UnknownPlanException(code);
    }
}
