package dev.umbra.guild.notification;

import static org.assertj.core.api.Assertions.assertThat;

import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.faulttolerance.api.CircuitBreakerState;
import jakarta.ws.rs.WebApplicationException;
import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.function.Consumer;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.junit.jupiter.api.Test;

/** When the dispatcher may claim messages, whatever the breaker's own timer does. */
class DiscordMessengerTest {

    private static final Duration DELAY = Duration.ofMillis(500);

    private final Circuit circuit = new Circuit();
    private final MovingClock clock = new MovingClock();
    private final DiscordMessenger messenger = new DiscordMessenger(null, null, circuit, DELAY, clock);

    @Test
    void theCircuitCountsDiscordAwayNotAMessageItRefuses() {
        assertThat(DiscordMessenger.discordAway(new WebApplicationException(503))).isTrue();
        assertThat(DiscordMessenger.discordAway(new WebApplicationException(500))).isTrue();
        assertThat(DiscordMessenger.discordAway(new WebApplicationException(429))).isTrue();
        // the bot's token refused: no message can go until it is fixed
        assertThat(DiscordMessenger.discordAway(new WebApplicationException(401))).isTrue();
        assertThat(DiscordMessenger.discordAway(new TimeoutException())).isTrue();
        assertThat(DiscordMessenger.discordAway(new ConnectException("Connection refused"))).isTrue();
        // a user who takes no DMs, a channel gone: that message's answer, not Discord's state
        assertThat(DiscordMessenger.discordAway(new WebApplicationException(403))).isFalse();
        assertThat(DiscordMessenger.discordAway(new WebApplicationException(404))).isFalse();
        assertThat(DiscordMessenger.discordAway(new WebApplicationException(400))).isFalse();
    }

    @Test
    void discordIsPresumedUpBeforeItsCircuitExistsAndWhileItIsNotOpen() {
        assertThat(messenger.available()).isTrue();
        circuit.state = CircuitBreakerState.CLOSED;
        assertThat(messenger.available()).isTrue();
        circuit.state = CircuitBreakerState.HALF_OPEN;
        assertThat(messenger.available()).isTrue();
    }

    @Test
    void anOpenCircuitLetsOneRoundThroughPerDelayEvenIfTheBreakerStaysOpen() {
        circuit.state = CircuitBreakerState.OPEN;
        assertThat(messenger.available()).as("just opened").isFalse();
        clock.move(DELAY.minusMillis(1));
        assertThat(messenger.available()).isFalse();
        clock.move(Duration.ofMillis(1));
        assertThat(messenger.available()).as("a delay later: a call moves the breaker to half-open itself").isTrue();
        assertThat(messenger.available()).as("one round, not every one").isFalse();
        clock.move(DELAY);
        assertThat(messenger.available()).isTrue();
    }

    @Test
    void aCircuitThatClosedAndOpenedAgainWaitsAWholeDelayAgain() {
        circuit.state = CircuitBreakerState.OPEN;
        messenger.available();
        clock.move(DELAY.multipliedBy(3));
        circuit.state = CircuitBreakerState.CLOSED;
        assertThat(messenger.available()).isTrue();
        circuit.state = CircuitBreakerState.OPEN;
        assertThat(messenger.available()).isFalse();
        clock.move(DELAY.dividedBy(2));
        assertThat(messenger.available()).isFalse();
    }

    /** The breaker's state as SmallRye reports it: unknown until the first call. */
    private static final class Circuit implements CircuitBreakerMaintenance {
        CircuitBreakerState state;

        @Override
        public CircuitBreakerState currentState(String name) {
            if (state == null) {
                throw new IllegalArgumentException("no circuit breaker " + name);
            }
            return state;
        }

        @Override
        public void onStateChange(String name, Consumer<CircuitBreakerState> callback) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void reset(String name) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void resetAll() {
            throw new UnsupportedOperationException();
        }
    }

    private static final class MovingClock extends Clock {
        private Instant now = Instant.parse("2026-11-26T10:00:00Z");

        void move(Duration by) {
            now = now.plus(by);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
