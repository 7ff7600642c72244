package dev.umbra.recovery.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.events.plan.Plan;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RetentionTest {

    private static List<UUID> snapshots(int count) {
        return IntStream.range(0, count).mapToObj(i -> UUID.randomUUID()).toList();
    }

    @Test
    void eachPlanKeepsItsNewestCountAndDeletesTheOlderOnes() {
        List<UUID> newestFirst = snapshots(32);
        assertThat(Retention.beyond(newestFirst, Plan.FREE.entitlements().snapshotRetention(), Set.of())).isEqualTo(newestFirst.subList(1, 32));
        assertThat(Retention.beyond(newestFirst, Plan.PRO.entitlements().snapshotRetention(), Set.of())).isEqualTo(newestFirst.subList(7, 32));
        assertThat(Retention.beyond(newestFirst, Plan.PREMIUM.entitlements().snapshotRetention(), Set.of()))
                .isEqualTo(newestFirst.subList(30, 32));
    }

    @Test
    void underTheCountNothingGoes() {
        assertThat(Retention.beyond(snapshots(7), 7, Set.of())).isEmpty();
        assertThat(Retention.beyond(snapshots(1), 1, Set.of())).isEmpty();
    }

    @Test
    void aDowngradeShrinksRetentionAtTheNextSnapshot() {
        List<UUID> premiumKept = snapshots(30);
        assertThat(Retention.beyond(premiumKept, 30, Set.of())).isEmpty();
        UUID next = UUID.randomUUID();
        List<UUID> afterDowngrade = new java.util.ArrayList<>(List.of(next));
        afterDowngrade.addAll(premiumKept);
        assertThat(Retention.beyond(afterDowngrade, 7, Set.of())).hasSize(24).doesNotContain(next).isEqualTo(afterDowngrade.subList(7, 31));
    }

    @Test
    void theNewestIsKeptEvenWithoutAllowanceAndASnapshotARestoreNeedsIsKept() {
        List<UUID> newestFirst = snapshots(3);
        assertThat(Retention.beyond(newestFirst, 0, Set.of())).containsExactly(newestFirst.get(1), newestFirst.get(2));
        assertThat(Retention.beyond(newestFirst, 1, Set.of(newestFirst.get(2)))).containsExactly(newestFirst.get(1));
    }
}
