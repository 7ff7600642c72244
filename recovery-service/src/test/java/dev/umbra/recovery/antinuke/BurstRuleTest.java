package dev.umbra.recovery.antinuke;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class BurstRuleTest {

    private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
    private final BurstRule channels = new BurstRule("mass-channel-deletion", "CHANNEL_DELETE", 3, Duration.ofSeconds(10));
    private final BurstRule bans = new BurstRule("mass-ban", "MEMBER_BAN_ADD", 5, Duration.ofSeconds(10));

    private static List<Instant> at(long... seconds) {
        return java.util.Arrays.stream(seconds).mapToObj(T::plusSeconds).toList();
    }

    @Test
    void justUnderEachThresholdIsNoBurstAndJustOverIs() {
        assertThat(channels.burstAt(at(0, 5), T.plusSeconds(5))).isFalse();
        assertThat(channels.burstAt(at(0, 5, 9), T.plusSeconds(9))).isTrue();
        assertThat(bans.burstAt(at(0, 1, 2, 3), T.plusSeconds(3))).isFalse();
        assertThat(bans.burstAt(at(0, 1, 2, 3, 4), T.plusSeconds(4))).isTrue();
    }

    @Test
    void entriesJustOutsideTheWindowDoNotCount() {
        assertThat(channels.burstAt(at(0, 6, 11), T.plusSeconds(11))).isFalse();
        assertThat(channels.burstAt(at(1, 6, 11), T.plusSeconds(11))).isTrue();
    }

    @Test
    void aBurstIsFoundWhicheverOfItsEntriesArrivesLast() {
        // the entries of 0 s and 1 s arrive after the one of 9 s: the last to arrive is the first or a middle one of the burst
        assertThat(channels.burstAt(at(9, 0), T)).isFalse();
        assertThat(channels.burstAt(at(9, 0, 1), T.plusSeconds(1))).isTrue();
        assertThat(channels.burstAt(at(9, 1, 0), T)).isTrue();
        assertThat(bans.burstAt(at(4, 3, 1, 2, 0), T)).isTrue();
    }

    @Test
    void entriesAroundTheNewOneCountOnlyInAWindowThatHoldsItToo() {
        // 0 s and 11 s are both within a window of 5 s, but no window of 10 s holds all three
        assertThat(channels.burstAt(at(0, 11, 5), T.plusSeconds(5))).isFalse();
        assertThat(channels.burstAt(at(0, 10, 5), T.plusSeconds(5))).isTrue();
        // a window that holds two others but not the new entry is no burst of the new entry's
        assertThat(channels.burstAt(at(12, 13, 0), T)).isFalse();
    }

    @Test
    void aBurstGoesOnWhileEntriesComeWithinAWindowOfItsLastOrLateWithinAWindowOfItsFirst() {
        assertThat(channels.continues(T, T.plusSeconds(3), T.plusSeconds(13))).isTrue();
        assertThat(channels.continues(T, T.plusSeconds(3), T.plusSeconds(14))).isFalse();
        assertThat(channels.continues(T, T.plusSeconds(3), T.plusSeconds(1))).isTrue();
        assertThat(channels.continues(T, T.plusSeconds(3), T.minusSeconds(10))).isTrue();
        assertThat(channels.continues(T, T.plusSeconds(3), T.minusSeconds(11))).isFalse();
    }
}
