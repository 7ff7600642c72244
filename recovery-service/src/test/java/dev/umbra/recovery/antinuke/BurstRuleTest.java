package dev.umbra.recovery.antinuke;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BurstRuleTest {

    private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
    private final BurstRule channels = new BurstRule("mass-channel-deletion", "CHANNEL_DELETE", 3, Duration.ofSeconds(10));
    private final BurstRule bans = new BurstRule("mass-ban", "MEMBER_BAN_ADD", 5, Duration.ofSeconds(10));

    private static List<Instant> at(long... seconds) {
        return java.util.Arrays.stream(seconds).mapToObj(T::plusSeconds).toList();
    }

    private static BurstRule.Span span(long first, long last) {
        return new BurstRule.Span(T.plusSeconds(first), T.plusSeconds(last));
    }

    @Test
    void justUnderEachThresholdIsNoBurstAndJustOverIs() {
        assertThat(channels.burstAt(at(0, 5), T.plusSeconds(5))).isEmpty();
        assertThat(channels.burstAt(at(0, 5, 9), T.plusSeconds(9))).isPresent();
        assertThat(bans.burstAt(at(0, 1, 2, 3), T.plusSeconds(3))).isEmpty();
        assertThat(bans.burstAt(at(0, 1, 2, 3, 4), T.plusSeconds(4))).isPresent();
    }

    @Test
    void entriesJustOutsideTheWindowDoNotCount() {
        assertThat(channels.burstAt(at(0, 6, 11), T.plusSeconds(11))).isEmpty();
        assertThat(channels.burstAt(at(1, 6, 11), T.plusSeconds(11))).isPresent();
    }

    @Test
    void aBurstIsFoundWhicheverOfItsEntriesArrivesLast() {
        // the entries of 0 s and 1 s arrive after the one of 9 s: the last to arrive is the first or a middle one of the burst
        assertThat(channels.burstAt(at(9, 0), T)).isEmpty();
        assertThat(channels.burstAt(at(9, 0, 1), T.plusSeconds(1))).isPresent();
        assertThat(channels.burstAt(at(9, 1, 0), T)).isPresent();
        assertThat(bans.burstAt(at(4, 3, 1, 2, 0), T)).isPresent();
    }

    @Test
    void entriesAroundTheNewOneCountOnlyInAWindowThatHoldsItToo() {
        // 0 s and 11 s are both within a window of 5 s, but no window of 10 s holds all three
        assertThat(channels.burstAt(at(0, 11, 5), T.plusSeconds(5))).isEmpty();
        assertThat(channels.burstAt(at(0, 10, 5), T.plusSeconds(5))).isPresent();
        // a window that holds two others but not the new entry is no burst of the new entry's
        assertThat(channels.burstAt(at(12, 13, 0), T)).isEmpty();
    }

    @Test
    void aBurstSpansEveryEntryOfItsWindowsNotOnlyTheOneThatArrivedLast() {
        // the audit log forwarded a page at a time, newest first: 2, 1, 0, then 13, 12, 11
        assertThat(channels.burstAt(at(2, 1, 0), T)).contains(span(0, 2));
        BurstRule.Span later = channels.burstAt(at(2, 1, 0, 13, 12, 11), T.plusSeconds(11)).orElseThrow();
        assertThat(later).isEqualTo(span(1, 13));
        assertThat(channels.continues(T, T.plusSeconds(2), later)).as("in time order the actor paused 9 s").isTrue();
        // 0, 1, 2 in order, then a late entry of -9 s
        BurstRule.Span late = channels.burstAt(at(0, 1, 2, -9), T.minusSeconds(9)).orElseThrow();
        assertThat(late).isEqualTo(span(-9, 1));
        assertThat(channels.continues(T, T.plusSeconds(2), late)).isTrue();
        // 12 and 13 make no burst alone; 22, arriving last, makes one of all three, 10 s after the incident's last entry
        assertThat(channels.burstAt(at(0, 1, 2, 12, 13), T.plusSeconds(13))).isEmpty();
        BurstRule.Span after = channels.burstAt(at(0, 1, 2, 12, 13, 22), T.plusSeconds(22)).orElseThrow();
        assertThat(after).isEqualTo(span(12, 22));
        assertThat(channels.continues(T, T.plusSeconds(2), after)).isTrue();
        assertThat(channels.continues(T, T.plusSeconds(1), after)).isFalse();
    }

    @Test
    void aBurstGoesOnWhileEntriesComeWithinAWindowOfItsLastOrLateWithinAWindowOfItsFirst() {
        assertThat(channels.continues(T, T.plusSeconds(3), span(13, 13))).isTrue();
        assertThat(channels.continues(T, T.plusSeconds(3), span(14, 14))).isFalse();
        assertThat(channels.continues(T, T.plusSeconds(3), span(1, 1))).isTrue();
        assertThat(channels.continues(T, T.plusSeconds(3), span(-10, -10))).isTrue();
        assertThat(channels.continues(T, T.plusSeconds(3), span(-11, -11))).isFalse();
    }

    @Test
    void theOnePassFindsWhatCountingEveryWindowFinds() {
        Random random = new Random(20_261_127L);
        for (int round = 0; round < 2_000; round++) {
            BurstRule rule = new BurstRule("p", "a", 2 + random.nextInt(4), Duration.ofSeconds(1 + random.nextInt(15)));
            List<Instant> entries = new ArrayList<>();
            int count = 1 + random.nextInt(30);
            for (int i = 0; i < count; i++) {
                entries.add(T.plusSeconds(random.nextInt(60)));
            }
            Instant at = entries.get(random.nextInt(count));
            assertThat(rule.burstAt(entries, at)).as("round %d: %s at %s", round, entries, at).isEqualTo(everyWindow(rule, entries, at));
        }
    }

    /** The rule's definition, counted window by window. */
    private static Optional<BurstRule.Span> everyWindow(BurstRule rule, List<Instant> entries, Instant at) {
        List<Instant> inBursts = entries.stream().filter(start -> !start.isBefore(at.minus(rule.window())) && !start.isAfter(at))
                .map(start -> entries.stream().filter(time -> !time.isBefore(start) && !time.isAfter(start.plus(rule.window()))).toList())
                .filter(held -> held.size() >= rule.threshold())
                .flatMap(List::stream).toList();
        return inBursts.isEmpty() ? Optional.empty()
                : Optional.of(new BurstRule.Span(inBursts.stream().min(Instant::compareTo).orElseThrow(),
                        inBursts.stream().max(Instant::compareTo).orElseThrow()));
    }
}
