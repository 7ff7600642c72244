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
        assertThat(channels.burstAt(at(0, 1, 2), T.plusSeconds(1))).as("a later entry is not in a window that ends before it").isFalse();
    }

    @Test
    void aBurstGoesOnWhileEntriesComeWithinAWindowOfItsLast() {
        assertThat(channels.continues(T, T.plusSeconds(10))).isTrue();
        assertThat(channels.continues(T, T.plusSeconds(11))).isFalse();
    }
}
