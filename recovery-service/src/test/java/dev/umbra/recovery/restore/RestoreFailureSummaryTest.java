package dev.umbra.recovery.restore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.recovery.discord.DiscordFault;
import dev.umbra.recovery.discord.DiscordRejection;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

class RestoreFailureSummaryTest {

    @Test
    void anUnexpectedErrorIsNotQuotedToTheGuildsOwner() {
        IllegalStateException bug = new IllegalStateException(
                "insert into restore_step (job_id, payload) values ('1f0c…', '{\"name\":\"mods\"}') failed");

        String summary = RestoreWorker.failureSummary(bug, 5, false);

        assertThat(summary).isEqualTo("gave up after 5 tries: an unexpected error (the recovery service's log has it)")
                .doesNotContain("insert", "restore_step", "mods");
    }

    @Test
    void discordsOwnAccountIsPassedOnWithTheTries() {
        assertThat(RestoreWorker.failureSummary(DiscordFault.circuitOpen(), 5, false))
                .isEqualTo("gave up after 5 tries: Discord's circuit is open: not called");
    }

    @Test
    void neitherDiscordsOwnTextNorTheTransportsHostsReachTheOwner() {
        assertThat(RestoreWorker.failureSummary(DiscordFault.of(new ConnectException("Connection refused: discord.internal/10.1.2.3:443")), 5,
                false)).isEqualTo("gave up after 5 tries: could not connect to Discord");
        assertThat(RestoreWorker.failureSummary(new DiscordRejection(403, "Missing Permissions"), 1, true))
                .isEqualTo("Discord refused the call (403): the bot lacks a permission it needs in this guild");
    }

    @Test
    void theDatabaseAwayIsSaidSo() {
        assertThat(RestoreWorker.failureSummary(new ConnectException("Connection refused: /127.0.0.1:5432"), 5, false))
                .isEqualTo("gave up after 5 tries: the database was unavailable");
    }

    @Test
    void aHopelessRestoreSaysWhyWithoutCountingTries() {
        assertThat(RestoreWorker.failureSummary(new RestoreWorker.Impossible("snapshot 42 is gone"), 1, true))
                .isEqualTo("snapshot 42 is gone");
    }
}
