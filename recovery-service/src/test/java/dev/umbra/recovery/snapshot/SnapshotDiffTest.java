package dev.umbra.recovery.snapshot;

import static dev.umbra.recovery.snapshot.StructureFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SnapshotDiffTest {

    @Test
    void aSnapshotDoesNotDifferFromItself() {
        assertThat(SnapshotDiff.between(guild(), guild()).isEmpty()).isTrue();
    }

    @Test
    void namesWhatWasAddedRemovedAndChangedAndWhoseRolesMoved() {
        GuildStructure before = guild();
        GuildStructure after = new GuildStructure(
                List.of(role(GUILD, "@everyone", "0"), role(MOD, "moderators", "8"), role("200000000000000003", "vip", "0")),
                List.of(channel(CATEGORY, "text", 4, null), channel("300000000000000003", "news", 5, CATEGORY)),
                List.of(member(ALICE, MOD, "200000000000000003"), member(BOB)));

        SnapshotDiff diff = SnapshotDiff.between(before, after);

        assertThat(diff.roles()).isEqualTo(new SnapshotDiff.Changes(List.of("200000000000000003"), List.of(HELPER), List.of(MOD)));
        assertThat(diff.channels()).isEqualTo(new SnapshotDiff.Changes(List.of("300000000000000003"), List.of(GENERAL), List.of()));
        assertThat(diff.members()).containsExactly(new SnapshotDiff.MemberChange(ALICE, List.of("200000000000000003"), List.of()),
                new SnapshotDiff.MemberChange(BOB, List.of(), List.of(HELPER)));
    }
}
