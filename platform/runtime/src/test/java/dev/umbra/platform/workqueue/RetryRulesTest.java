package dev.umbra.platform.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RetryRulesTest {

    private static final Instant NOW = Instant.parse("2026-11-23T09:00:00Z");

    private static WorkQueueConfig.Settings settings(int maxAttempts) {
        return new WorkQueueConfig.Settings() {
            public int batchSize() {
                return 20;
            }

            public int concurrency() {
                return 4;
            }

            public Duration lease() {
                return Duration.ofMinutes(1);
            }

            public int maxAttempts() {
                return maxAttempts;
            }

            public int maxAbandonedClaims() {
                return 3;
            }

            public Duration initialBackoff() {
                return Duration.ofSeconds(5);
            }

            public Duration maxBackoff() {
                return Duration.ofMinutes(30);
            }

            public Duration pollInterval() {
                return Duration.ofSeconds(1);
            }

            public boolean polling() {
                return true;
            }

            public boolean keepDone() {
                return false;
            }
        };
    }

    /** random() = 1: the top of the jitter range, so the step itself. */
    private final RetryRules highest = new RetryRules(settings(3), () -> 1.0);
    private final RetryRules lowest = new RetryRules(settings(3), () -> 0.0);

    @Test
    void theBackoffDoublesUpToItsCapAndItsJitterStaysInTheUpperHalfOfTheStep() {
        assertThat(highest.backoff(1)).isEqualTo(Duration.ofSeconds(5));
        assertThat(highest.backoff(2)).isEqualTo(Duration.ofSeconds(10));
        assertThat(highest.backoff(4)).isEqualTo(Duration.ofSeconds(40));
        assertThat(highest.backoff(20)).isEqualTo(Duration.ofMinutes(30));
        assertThat(highest.backoff(10_000)).isEqualTo(Duration.ofMinutes(30));
        assertThat(lowest.backoff(2)).isEqualTo(Duration.ofSeconds(5));
        assertThat(lowest.backoff(20)).isEqualTo(Duration.ofMinutes(15));
    }

    @Test
    void workThatWasNotTriedSpendsNoAttempt() {
        RetryRules.Next next = highest.after(Outcome.deferred("circuit open", NOW.plusSeconds(10)), 2, 2, NOW);
        assertThat(next.status()).isEqualTo("pending");
        assertThat(next.attempts()).isEqualTo(2);
        assertThat(next.dueAt()).isEqualTo(NOW.plusSeconds(10));
        assertThat(highest.after(Outcome.deferred("not due yet", NOW.minusSeconds(10)), 0, 0, NOW).dueAt())
                .as("never in the past").isEqualTo(NOW);
        assertThat(highest.after(Outcome.deferred("circuit open", null), 5, 5, NOW).dueAt())
                .as("no time given: the first backoff step").isEqualTo(NOW.plusSeconds(5));
    }

    @Test
    void aFailureOfTheItemsOwnDeadLettersItAtTheLastAttempt() {
        RetryRules.Next first = highest.after(Outcome.failed("400 bad request"), 0, 0, NOW);
        assertThat(first.status()).isEqualTo("pending");
        assertThat(first.attempts()).isEqualTo(1);
        assertThat(first.dueAt()).isEqualTo(NOW.plusSeconds(5));

        RetryRules.Next last = highest.after(Outcome.failed("400 bad request"), 2, 2, NOW);
        assertThat(last.status()).isEqualTo("dead");
        assertThat(last.attempts()).isEqualTo(3);
        assertThat(last.error()).isEqualTo("gave up after 3 attempts: 400 bad request");
    }

    @Test
    void anOutageCountsItsTriesButNeverDeadLetters() {
        RetryRules.Next next = highest.after(Outcome.unavailable("503", null), 100, 0, NOW);
        assertThat(next.status()).isEqualTo("pending");
        assertThat(next.attempts()).isEqualTo(101);
        assertThat(next.failures()).isZero();
        assertThat(next.dueAt()).isEqualTo(NOW.plus(Duration.ofMinutes(30)));
    }

    @Test
    void aFailureAfterALongOutageIsTheFirstFailureNotTheLastAttempt() {
        RetryRules.Next next = highest.after(Outcome.failed("400 bad request"), 7, 0, NOW);
        assertThat(next.status()).isEqualTo("pending");
        assertThat(next.attempts()).isEqualTo(8);
        assertThat(next.failures()).isOne();
        assertThat(next.dueAt()).as("the backoff of the eighth try").isEqualTo(NOW.plus(Duration.ofSeconds(5 * 128)));
    }

    @Test
    void theNextAttemptIsNeverBeforeTheRetryAfterTheFarSideAsked() {
        Instant retryAfter = NOW.plusSeconds(90);
        assertThat(highest.after(Outcome.unavailable("429", retryAfter), 0, 0, NOW).dueAt()).isEqualTo(retryAfter);
        assertThat(highest.after(Outcome.unavailable("429", NOW.plusSeconds(1)), 3, 3, NOW).dueAt())
                .as("the backoff when it is later").isEqualTo(NOW.plusSeconds(40));
        assertThat(highest.after(new Outcome.Failed("409", retryAfter), 0, 0, NOW).dueAt()).isEqualTo(retryAfter);
    }

    @Test
    void aPoisonItemIsDeadAtOnceWithItsReasonAndNoAttemptSpent() {
        RetryRules.Next next = highest.after(Outcome.poison("no template for BotRenamed"), 0, 0, NOW);
        assertThat(next.status()).isEqualTo("dead");
        assertThat(next.attempts()).isZero();
        assertThat(next.error()).isEqualTo("poison: no template for BotRenamed");
    }

    @Test
    void doneCountsTheTryThatDidIt() {
        RetryRules.Next next = highest.after(Outcome.done(), 2, 2, NOW);
        assertThat(next.status()).isEqualTo("done");
        assertThat(next.attempts()).isEqualTo(3);
        assertThat(next.dueAt()).isNull();
    }

    @Test
    void aLongReasonIsCut() {
        assertThat(highest.after(Outcome.failed("x".repeat(2_000)), 0, 0, NOW).error()).hasSize(500);
    }

    @Test
    void aRunThatSchedulesTheNextStartsItsAttemptsAnewAndWaitsUntilThenWithoutBeingLate() {
        Instant next = NOW.plus(Duration.ofMinutes(1));
        // ten failed runs of an outage behind it: their backoff reached its cap
        assertThat(highest.after(Outcome.unavailable("run failed", next), 10, 0, NOW).dueAt()).isEqualTo(NOW.plus(Duration.ofMinutes(30)));

        RetryRules.Next scheduled = highest.after(Outcome.scheduled("next run", next), 10, 2, NOW);
        assertThat(scheduled.status()).isEqualTo(WorkQueue.PENDING);
        assertThat(scheduled.attempts()).isZero();
        assertThat(scheduled.failures()).isZero();
        assertThat(scheduled.dueAt()).isEqualTo(next);
        assertThat(scheduled.readyAt()).isEqualTo(next);
        // so one failed run after it waits one step, not the cap
        assertThat(highest.after(Outcome.unavailable("run failed", next), scheduled.attempts(), 0, NOW).dueAt()).isEqualTo(next);
        assertThat(highest.after(Outcome.unavailable("run failed", null), scheduled.attempts(), 0, NOW).dueAt())
                .isEqualTo(NOW.plus(Duration.ofSeconds(5)));
    }

    @Test
    void onlyAnItemThatStartsWaitingAnewMovesTheTimeItsAgeCountsFrom() {
        assertThat(highest.after(Outcome.deferred("circuit open", NOW.plusSeconds(30)), 0, 0, NOW).readyAt()).isNull();
        assertThat(highest.after(Outcome.unavailable("503", null), 0, 0, NOW).readyAt()).isNull();
        assertThat(highest.after(Outcome.failed("409"), 0, 0, NOW).readyAt()).isNull();
        assertThat(highest.after(Outcome.scheduled("a schedule in the past", NOW.minusSeconds(5)), 0, 0, NOW).readyAt()).isEqualTo(NOW);
    }
}
