package dev.umbra.events.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PlanTest {

    @Test
    void eachPlanAllowsWhatTheCatalogueSays() {
        assertThat(Plan.FREE.entitlements()).isEqualTo(new Entitlements(1, 1, false, false, false));
        assertThat(Plan.PRO.entitlements()).isEqualTo(new Entitlements(7, 5, true, true, false));
        assertThat(Plan.PREMIUM.entitlements()).isEqualTo(new Entitlements(30, 20, true, true, true));
    }

    @Test
    void aHigherPlanNeverAllowsLess() {
        Plan[] plans = Plan.values();
        for (int i = 1; i < plans.length; i++) {
            Entitlements lower = plans[i - 1].entitlements();
            Entitlements higher = plans[i].entitlements();
            assertThat(plans[i].isAbove(plans[i - 1])).isTrue();
            assertThat(higher.snapshotRetention()).isGreaterThanOrEqualTo(lower.snapshotRetention());
            assertThat(higher.restoresPerDay()).isGreaterThanOrEqualTo(lower.restoresPerDay());
            assertThat(!lower.antiNuke() || higher.antiNuke()).as("anti-nuke of " + plans[i]).isTrue();
            assertThat(!lower.webJoin() || higher.webJoin()).as("web-join of " + plans[i]).isTrue();
            assertThat(!lower.memberRestore() || higher.memberRestore()).as("member restore of " + plans[i]).isTrue();
        }
    }

    @Test
    void codesAreTheNamesAndAnUnknownCodeIsNoPlan() {
        assertThat(Plan.ofCode("PRO")).contains(Plan.PRO);
        assertThat(Plan.ofCode("pro")).isEmpty();
        assertThat(Plan.ofCode("GOLD")).isEmpty();
        assertThat(Plan.ofCode(null)).isEmpty();
    }

    @Test
    void allowancesAreNeverNegative() {
        assertThatThrownBy(() -> new Entitlements(-1, 0, false, false, false)).isInstanceOf(IllegalArgumentException.class);
    }
}
