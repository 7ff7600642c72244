package dev.umbra.guild.notification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.umbra.platform.workqueue.Outcome;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Properties;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.junit.jupiter.api.Test;

/** What each of Discord's answers costs a message: the attempt rules of the dispatcher, without Quarkus. */
class NotificationDispatcherTest {

    private static final Instant NOW = Instant.parse("2026-11-23T09:00:00Z");

    private final NotificationDispatcher dispatcher = new NotificationDispatcher(null, null, Clock.fixed(NOW, ZoneOffset.UTC));

    @Test
    void retriesLaterThanDiscordsNonceWindowAreRefusedAtStartAndTheShippedBackoffIsWithinIt() throws Exception {
        assertThatThrownBy(() -> NotificationDispatcher.checkRetriesStayWithinTheNonceWindow(Duration.ofMinutes(30)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("nonce window");
        Properties shipped = new Properties();
        try (var in = NotificationDispatcher.class.getResourceAsStream("/application.properties")) {
            shipped.load(in);
        }
        NotificationDispatcher.checkRetriesStayWithinTheNonceWindow(Duration.parse(shipped.getProperty("umbra.work-queue.discord-dm.max-backoff")));
    }

    @Test
    void aCallTheOpenCircuitRefusedIsNotTried() {
        assertThat(dispatcher.outcomeOf(new CircuitBreakerOpenException("open"))).isInstanceOf(Outcome.Deferred.class);
    }

    @Test
    void anOutageIsUnavailableNotTheMessagesFault() {
        assertThat(dispatcher.outcomeOf(answered(503, null))).isInstanceOf(Outcome.Unavailable.class);
        assertThat(dispatcher.outcomeOf(new TimeoutException("4 s"))).isInstanceOf(Outcome.Unavailable.class);
        assertThat(dispatcher.outcomeOf(new ConnectException("refused"))).isInstanceOf(Outcome.Unavailable.class);
    }

    @Test
    void aRateLimitComesBackNotBeforeItsRetryAfter() {
        assertThat(dispatcher.outcomeOf(answered(429, "2.5")))
                .isEqualTo(Outcome.unavailable("Discord rate-limited the call (429)", NOW.plusMillis(2_500)));
        assertThat(dispatcher.outcomeOf(answered(429, null)))
                .isEqualTo(Outcome.unavailable("Discord rate-limited the call (429)", null));
    }

    @Test
    void aRefusedBotTokenIsAnOutageNotEachMessagesFailure() {
        assertThat(dispatcher.outcomeOf(answered(401, null))).isEqualTo(Outcome.unavailable("Discord refused the bot's token (401)", null));
    }

    @Test
    void aRefusalIsTheMessagesOwnFailure() {
        assertThat(dispatcher.outcomeOf(answered(403, null))).isEqualTo(Outcome.failed("Discord refused the message: 403"));
    }

    private static WebApplicationException answered(int status, String retryAfter) {
        Response.ResponseBuilder response = Response.status(status);
        if (retryAfter != null) {
            response.header("Retry-After", retryAfter);
        }
        return new WebApplicationException(response.build());
    }
}
