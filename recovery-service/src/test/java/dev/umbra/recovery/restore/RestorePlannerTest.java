package dev.umbra.recovery.restore;

import static dev.umbra.recovery.snapshot.StructureFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.recovery.snapshot.GuildStructure;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RestorePlannerTest {

    private static List<String> steps(GuildStructure snapshot, GuildStructure current) {
        return steps(snapshot, current, Set.of());
    }

    private static List<String> steps(GuildStructure snapshot, GuildStructure current, Set<String> withheld) {
        return RestorePlanner.plan(GUILD, snapshot, current, withheld).stream().map(step -> step.kind() + " " + step.targetId()).toList();
    }

    @Test
    void aGuildAsItsSnapshotNeedsNoStep() {
        assertThat(steps(guild(), guild())).isEmpty();
    }

    @Test
    void afterANukeEverythingGoneIsCreatedInOrderAndWhatTheNukerAddedIsDeleted() {
        GuildStructure nuked = new GuildStructure(
                List.of(role(GUILD, "@everyone", "8"), role("200000000000000009", "nuker", "8")),
                List.of(channel("300000000000000009", "nuked", 0, null)),
                List.of(member(ALICE), member(BOB, "200000000000000009")));

        assertThat(steps(guild(), nuked)).containsExactly(
                "UPDATE_ROLE " + GUILD,
                "CREATE_ROLE " + MOD,
                "CREATE_ROLE " + HELPER,
                "ORDER_ROLES " + GUILD,
                "CREATE_CHANNEL " + CATEGORY,
                "CREATE_CHANNEL " + GENERAL,
                "SET_MEMBER_ROLES " + ALICE,
                "SET_MEMBER_ROLES " + BOB,
                "DELETE_CHANNEL 300000000000000009",
                "DELETE_ROLE 200000000000000009");
    }

    @Test
    void theNukersRolesAreNotGivenBackAndTheirRolesNowAreLeftAsTheyAre() {
        // the structure put back already; the response took every role from the nuker, and the nuke Bob's
        GuildStructure nuked = new GuildStructure(guild().roles(), guild().channels(), List.of(member(ALICE), member(BOB)));

        assertThat(steps(guild(), nuked, Set.of(ALICE))).containsExactly("SET_MEMBER_ROLES " + BOB);
    }

    @Test
    void onlyWhatDiffersIsChangedAndEveryoneIsNeverDeletedNorAMemberWhoLeftTouched() {
        GuildStructure snapshot = guild();
        GuildStructure current = new GuildStructure(
                List.of(role(MOD, "mod", "8"), role(HELPER, "helpers!", "4")),
                List.of(channel(CATEGORY, "text", 4, null), channel(GENERAL, "general", 0, CATEGORY)),
                List.of(member(ALICE, MOD)));

        assertThat(steps(snapshot, current)).containsExactly("UPDATE_ROLE " + HELPER, "UPDATE_CHANNEL " + GENERAL);
    }

    @Test
    void keptRolesStandingInAnotherOrderArePutBackAtTheSnapshotsPositions() {
        GuildStructure snapshot = new GuildStructure(List.of(role(GUILD, "@everyone", "0"), ranked(MOD, "mod", 2), ranked(HELPER, "helper", 1)),
                List.of(), List.of());
        GuildStructure swapped = new GuildStructure(List.of(role(GUILD, "@everyone", "0"), ranked(MOD, "mod", 1), ranked(HELPER, "helper", 7)),
                List.of(), List.of());
        GuildStructure renumbered = new GuildStructure(List.of(role(GUILD, "@everyone", "0"), ranked(MOD, "mod", 9), ranked(HELPER, "helper", 4)),
                List.of(), List.of());

        List<RestorePlanner.Step> plan = RestorePlanner.plan(GUILD, snapshot, swapped, Set.of());
        assertThat(plan).extracting(step -> step.kind() + " " + step.targetId()).containsExactly("ORDER_ROLES " + GUILD);
        assertThat(((RestorePlanner.RolePositions) plan.get(0).spec()).roles()).containsExactly(
                new RestorePlanner.RolePositions.Position(MOD, 2), new RestorePlanner.RolePositions.Position(HELPER, 1));
        // the same order under other numbers is the same hierarchy
        assertThat(steps(snapshot, renumbered)).isEmpty();
    }

    private static GuildStructure.Role ranked(String id, String name, int position) {
        return new GuildStructure.Role(id, name, 0, "0", position, false, false);
    }

    @Test
    void categoriesComeBeforeTheChannelsInThemWhateverTheSnapshotsOrder() {
        GuildStructure snapshot = new GuildStructure(guild().roles(),
                List.of(channel(GENERAL, "general", 0, CATEGORY), channel(CATEGORY, "text", 4, null)), List.of());
        GuildStructure empty = new GuildStructure(guild().roles(), List.of(), List.of());

        assertThat(steps(snapshot, empty)).containsExactly("CREATE_CHANNEL " + CATEGORY, "CREATE_CHANNEL " + GENERAL);
    }
}
