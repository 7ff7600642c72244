package dev.umbra.recovery.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.events.plan.Plan;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RetentionTest {

    private static List<Retention.Stored> snapshots(int count, SnapshotTrigger trigger) {
        return IntStream.range(0, count).mapToObj(i -> new Retention.Stored(UUID.randomUUID(), trigger)).toList();
    }

    private static List<Retention.Stored> snapshots(int count) {
        return snapshots(count, SnapshotTrigger.MANUAL);
    }

    private static List<UUID> ids(List<Retention.Stored> snapshots) {
        return snapshots.stream().map(Retention.Stored::id).toList();
    }

    @SafeVarargs
    private static List<Retention.Stored> newestFirst(List<Retention.Stored>... runs) {
        List<Retention.Stored> all = new ArrayList<>();
        for (List<Retention.Stored> run : runs) {
            all.addAll(run);
        }
        return all;
    }

    @Test
    void eachPlanKeepsItsNewestCountAndDeletesTheOlderOnes() {
        List<Retention.Stored> newestFirst = snapshots(32);
        assertThat(Retention.beyond(newestFirst, Plan.FREE.entitlements().snapshotRetention(), Set.of()))
                .isEqualTo(ids(newestFirst.subList(1, 32)));
        assertThat(Retention.beyond(newestFirst, Plan.PRO.entitlements().snapshotRetention(), Set.of()))
                .isEqualTo(ids(newestFirst.subList(7, 32)));
        assertThat(Retention.beyond(newestFirst, Plan.PREMIUM.entitlements().snapshotRetention(), Set.of()))
                .isEqualTo(ids(newestFirst.subList(30, 32)));
    }

    @Test
    void underTheCountNothingGoes() {
        assertThat(Retention.beyond(snapshots(7), 7, Set.of())).isEmpty();
        assertThat(Retention.beyond(snapshots(1), 1, Set.of())).isEmpty();
    }

    @Test
    void aDowngradeShrinksRetentionAtTheNextSnapshot() {
        List<Retention.Stored> premiumKept = snapshots(30);
        assertThat(Retention.beyond(premiumKept, 30, Set.of())).isEmpty();
        List<Retention.Stored> afterDowngrade = newestFirst(snapshots(1), premiumKept);
        assertThat(Retention.beyond(afterDowngrade, 7, Set.of())).hasSize(24).doesNotContain(afterDowngrade.get(0).id())
                .isEqualTo(ids(afterDowngrade.subList(7, 31)));
    }

    @Test
    void theNewestIsKeptEvenWithoutAllowanceAndASnapshotARestoreNeedsIsKept() {
        List<Retention.Stored> newestFirst = snapshots(3);
        assertThat(Retention.beyond(newestFirst, 0, Set.of())).containsExactly(newestFirst.get(1).id(), newestFirst.get(2).id());
        assertThat(Retention.beyond(newestFirst, 1, Set.of(newestFirst.get(2).id()))).containsExactly(newestFirst.get(1).id());
    }

    @Test
    void manualAndScheduledSnapshotsShareThePlansCount() {
        List<Retention.Stored> newestFirst = newestFirst(snapshots(4, SnapshotTrigger.SCHEDULED), snapshots(4, SnapshotTrigger.MANUAL));
        assertThat(Retention.beyond(newestFirst, 7, Set.of())).containsExactly(newestFirst.get(7).id());
    }

    @Test
    void snapshotsOfIncidentsAndBeforeRestoresNeverPushOutTheRegularOnes() {
        // on PRO, nine anti-nuke responses and two restores after seven regular snapshots
        List<Retention.Stored> regular = newestFirst(snapshots(3, SnapshotTrigger.SCHEDULED), snapshots(4, SnapshotTrigger.MANUAL));
        List<Retention.Stored> incidents = snapshots(9, SnapshotTrigger.ANTI_NUKE);
        List<Retention.Stored> beforeRestores = snapshots(2, SnapshotTrigger.PRE_RESTORE);
        List<Retention.Stored> newestFirst = newestFirst(beforeRestores.subList(0, 1), incidents.subList(0, 5), beforeRestores.subList(1, 2),
                incidents.subList(5, 9), regular);

        assertThat(Retention.beyond(newestFirst, Plan.PRO.entitlements().snapshotRetention(), Set.of()))
                .as("only the oldest incidents' snapshots, beyond the count of their own kind").isEqualTo(ids(incidents.subList(7, 9)));
    }

    @Test
    void eachKindRecoveryTakesItselfKeepsThePlansCountOfItsOwn() {
        List<Retention.Stored> beforeRestores = snapshots(3, SnapshotTrigger.PRE_RESTORE);
        List<Retention.Stored> incidents = snapshots(3, SnapshotTrigger.ANTI_NUKE);
        List<Retention.Stored> newestFirst = newestFirst(beforeRestores, incidents, snapshots(1));
        assertThat(Retention.beyond(newestFirst, Plan.FREE.entitlements().snapshotRetention(), Set.of(beforeRestores.get(2).id())))
                .containsExactly(beforeRestores.get(1).id(), incidents.get(1).id(), incidents.get(2).id());
    }
}
