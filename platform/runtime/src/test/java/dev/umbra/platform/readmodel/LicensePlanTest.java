package dev.umbra.platform.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.events.StreamMark;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class LicensePlanTest {

    private static final String GUILD = "123456789012345678";
    private static final Instant T0 = Instant.parse("2026-11-01T10:00:00Z");

    private static StreamMark at(int seconds, long sequence) {
        return new StreamMark(sequence, T0.plusSeconds(seconds));
    }

    @Test
    void theEventsOfALicenseGiveTheSameStateInEveryOrderOfArrival() {
        List<UnaryOperator<LicensePlan>> events = List.of(
                license -> license.granted(GUILD, "PREMIUM", at(0, 1)),
                license -> license.downgraded("PRO", at(10, 2)),
                license -> license.suspended(at(20, 3)));

        for (List<UnaryOperator<LicensePlan>> order : permutations(events)) {
            LicensePlan state = LicensePlan.UNKNOWN;
            for (UnaryOperator<LicensePlan> event : order) {
                state = event.apply(state);
            }
            assertThat(state).isEqualTo(new LicensePlan(GUILD, "PRO", at(10, 2), "SUSPENDED", at(20, 3)));
        }
    }

    @Test
    void canceledIsFinalWhateverComesAfter() {
        List<UnaryOperator<LicensePlan>> events = List.of(
                license -> license.granted(GUILD, "PRO", at(0, 1)),
                license -> license.canceled(at(10, 2)),
                // a grant the license never had after its cancellation: a producer's mistake, which cannot revive it
                license -> license.granted(GUILD, "PRO", at(20, 3)));

        for (List<UnaryOperator<LicensePlan>> order : permutations(events)) {
            LicensePlan state = LicensePlan.UNKNOWN;
            for (UnaryOperator<LicensePlan> event : order) {
                state = event.apply(state);
            }
            assertThat(state).isEqualTo(new LicensePlan(GUILD, "PRO", at(20, 3), LicensePlan.CANCELED, at(20, 3)));
            assertThat(state.isActive()).isFalse();
        }
    }

    @Test
    void theSequenceOrdersEventsOfOneLicenseWhateverTheirClocksSay() {
        // licensing's clock went back between the two events: the sequence still says which is newer
        LicensePlan granted = LicensePlan.UNKNOWN.granted(GUILD, "PREMIUM", at(60, 1));
        assertThat(granted.downgraded("PRO", at(0, 2)).plan()).isEqualTo("PRO");
        assertThat(granted.downgraded("PRO", at(0, 2)).granted(GUILD, "PREMIUM", at(60, 1)).plan()).isEqualTo("PRO");
    }

    @Test
    void withoutASequenceTheOlderEventLosesAndAnEqualTimeWins() {
        LicensePlan granted = LicensePlan.UNKNOWN.granted(GUILD, "PRO", at(10, 0));
        assertThat(granted.downgraded("FREE", at(5, 0)).plan()).isEqualTo("PRO");
        // written in the transaction of the grant: same occurred_at, after it in the partition
        assertThat(granted.suspended(at(10, 0)).status()).isEqualTo(LicensePlan.SUSPENDED);
        // a row moved from a service's former table has no sequence either: time decides
        assertThat(granted.suspended(at(9, 7)).status()).isEqualTo(LicensePlan.ACTIVE);
    }

    @Test
    void anEventBeforeTheGrantKeepsItsWordAndTheGrantNamesTheGuild() {
        LicensePlan suspendedFirst = LicensePlan.UNKNOWN.suspended(at(20, 2));
        assertThat(suspendedFirst.guildId()).isNull();
        assertThat(suspendedFirst.isActive()).isFalse();

        LicensePlan granted = suspendedFirst.granted(GUILD, "PRO", at(0, 1));
        assertThat(granted).isEqualTo(new LicensePlan(GUILD, "PRO", at(0, 1), LicensePlan.SUSPENDED, at(20, 2)));
        assertThat(granted.granted("999999999999999999", "PRO", at(30, 3)).guildId()).isEqualTo(GUILD);
    }

    private static <T> List<List<T>> permutations(List<T> items) {
        if (items.isEmpty()) {
            return List.of(List.of());
        }
        List<List<T>> all = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            List<T> rest = new ArrayList<>(items);
            T first = rest.remove(i);
            for (List<T> tail : permutations(rest)) {
                List<T> order = new ArrayList<>();
                order.add(first);
                order.addAll(tail);
                all.add(order);
            }
        }
        return all;
    }
}
