package dev.umbra.recovery.snapshot;

import static dev.umbra.recovery.snapshot.StructureFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.platform.web.Problem.Violation;
import java.util.List;
import org.junit.jupiter.api.Test;

class StructureRulesTest {

    @Test
    void aWholeGuildHoldsTogether() {
        assertThat(StructureRules.violations(guild())).isEmpty();
    }

    @Test
    void referencesToRolesAndParentsOutsideTheSnapshotAndRepeatedIdsAreViolations() {
        GuildStructure broken = new GuildStructure(
                List.of(role(MOD, "mod", "8"), role(MOD, "again", "0")),
                List.of(channel(GENERAL, "general", 0, CATEGORY, roleOverwrite(HELPER)), channel(CATEGORY, "voice", 2, null)),
                List.of(member(ALICE, HELPER)));

        assertThat(StructureRules.violations(broken)).extracting(Violation::field).containsExactlyInAnyOrder(
                "roles[1].id", "channels[0].parentId", "channels[0].permissionOverwrites[0].id", "members[0].roles[0]");
    }
}
