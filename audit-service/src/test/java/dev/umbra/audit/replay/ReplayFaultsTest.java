package dev.umbra.audit.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletionException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.junit.jupiter.api.Test;

class ReplayFaultsTest {

    @Test
    void aBrokerMovingItsLeaderOrAnsweringAnUnknownErrorIsWaitedOut() {
        assertThat(ReplayWorker.unavailable(new CompletionException(new NotLeaderOrFollowerException("moving")))).isTrue();
        assertThat(ReplayWorker.unavailable(new CompletionException(new UnknownServerException("UNKNOWN_SERVER_ERROR")))).isTrue();
    }

    @Test
    void aRefusalOfTheRecordsOrTheTopicIsTheReplaysOwnFailure() {
        assertThat(ReplayWorker.unavailable(new RecordTooLargeException("too large"))).isFalse();
        assertThat(ReplayWorker.unavailable(new TopicAuthorizationException("umbra.guild"))).isFalse();
    }
}
