package dev.umbra.billing.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PlanCatalogueTest {

    @Test
    void listsFreeProPremiumCheapestFirstInWholeWon() {
        assertThat(PlanCatalogue.all())
                .extracting(Plan::code, Plan::monthlyPrice, Plan::currency)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("FREE", 0L, "KRW"),
                        org.assertj.core.groups.Tuple.tuple("PRO", 9_900L, "KRW"),
                        org.assertj.core.groups.Tuple.tuple("PREMIUM", 19_900L, "KRW"));
    }

    @Test
    void findsAPlanByCodeAndRejectsAnUnknownOne() {
        assertThat(PlanCatalogue.of("PRO")).isSameAs(PlanCatalogue.PRO);
        assertThatThrownBy(() -> PlanCatalogue.of("pro")).isInstanceOf(UnknownPlanException.class).hasMessageContaining("pro");
        assertThatThrownBy(() -> PlanCatalogue.of(null)).isInstanceOf(UnknownPlanException.class);
    }

    @Test
    void ranksOrderThePlansAndOnlyFreeIsUnpaid() {
        assertThat(PlanCatalogue.PREMIUM.isAbove(PlanCatalogue.PRO)).isTrue();
        assertThat(PlanCatalogue.PRO.isAbove(PlanCatalogue.PREMIUM)).isFalse();
        assertThat(PlanCatalogue.all()).filteredOn(Plan::isPaid).extracting(Plan::code).containsExactly("PRO", "PREMIUM");
    }

    @Test
    void aNegativePriceIsNotAPlan() {
        assertThatThrownBy(() -> new Plan("X", "X", -1, "KRW", 9)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Stored subscriptions reference the plan table by code: its rows must be the catalogue's. */
    @Test
    void theMigratedPlanTableHoldsTheSameRows() throws IOException {
        String migration;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("db/migration/V1__plan_catalogue.sql")) {
            assertThat(in).isNotNull();
            migration = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (Plan plan : PlanCatalogue.all()) {
            assertThat(migration).contains("('%s', '%s', %d, '%s', %d)".formatted(
                    plan.code(), plan.name(), plan.monthlyPrice(), plan.currency(), plan.rank()));
        }
        assertThat(migration.split("\\('", -1)).hasSize(PlanCatalogue.all().size() + 1);
    }
}
