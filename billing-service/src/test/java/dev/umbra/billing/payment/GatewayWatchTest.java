package dev.umbra.billing.payment;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class GatewayWatchTest {

    private static final Duration FIRST = Duration.ofMinutes(1);
    private static final Duration LONGEST = Duration.ofMinutes(30);
    private static final Instant DUE = Instant.parse("2026-11-28T02:00:00Z");

    private static GatewayWatch dueAt(Instant due) {
        GatewayWatch watch = new GatewayWatch() {
        };
        watch.nextLookAt = due;
        return watch;
    }

    @Test
    void eachLookDoublesTheWaitUpToTheLongest() {
        GatewayWatch watch = dueAt(DUE);
        Instant at = DUE;
        for (int look = 0; look < 7; look++) {
            watch.lookAgain("nothing yet", at, FIRST, LONGEST);
            at = watch.nextLookAt;
        }
        assertThat(watch.looks).isEqualTo(7);
        // 1 + 2 + 4 + 8 + 16 + 30 + 30 minutes
        assertThat(watch.nextLookAt).isEqualTo(DUE.plus(Duration.ofMinutes(91)));
    }

    @Test
    void twoRunsThatFoundTheWatchDueTogetherDoubleItsWaitOnce() {
        GatewayWatch watch = dueAt(DUE);
        watch.lookAgain("nothing yet", DUE.plusSeconds(1), FIRST, LONGEST);
        watch.lookAgain("nothing yet", DUE.plusSeconds(2), FIRST, LONGEST);

        assertThat(watch.looks).isEqualTo(1);
        assertThat(watch.nextLookAt).isEqualTo(DUE.plusSeconds(1).plus(FIRST));
        assertThat(watch.detail).isEqualTo("nothing yet");
    }
}
