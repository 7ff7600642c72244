package dev.umbra.platform.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.events.plan.Plan;
import java.util.List;
import org.junit.jupiter.api.Test;

class GuildPlansTest {

    @Test
    void theHighestActivePlanCountsAndNoneOrAnUnknownOneIsFree() {
        assertThat(GuildPlans.highest(List.of())).isEqualTo(Plan.FREE);
        assertThat(GuildPlans.highest(List.of("PRO", "PREMIUM", "FREE"))).isEqualTo(Plan.PREMIUM);
        assertThat(GuildPlans.highest(List.of("ENTERPRISE"))).isEqualTo(Plan.FREE);
    }
}
