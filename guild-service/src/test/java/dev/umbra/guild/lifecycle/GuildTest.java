package dev.umbra.guild.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class GuildTest {

    private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
    private static final Instant T1 = Instant.parse("2026-11-22T11:00:00Z");

    @Test
    void aRepeatedInstallChangesNothing() {
        Guild guild = Guild.installed("123456789012345678", "223456789012345678", null, T0);

        assertThat(guild.install("323456789012345678", null, T1)).isFalse();
        assertThat(guild.installerUserId).isEqualTo("223456789012345678");
        assertThat(guild.installedAt).isEqualTo(T0);
    }

    @Test
    void aKickedGuildCanInstallAgain() {
        Guild guild = Guild.installed("123456789012345678", "223456789012345678", null, T0);
        guild.status = GuildStatus.KICKED;

        assertThat(guild.install("323456789012345678", null, T1)).isTrue();
        assertThat(guild.status).isEqualTo(GuildStatus.INSTALLED);
        assertThat(guild.installerUserId).isEqualTo("323456789012345678");
        assertThat(guild.installedAt).isEqualTo(T1);
    }

    @Test
    void aDeletedGuildStaysDeleted() {
        Guild guild = Guild.installed("123456789012345678", "223456789012345678", null, T0);
        guild.status = GuildStatus.DELETED;

        assertThatThrownBy(() -> guild.install("323456789012345678", null, T1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aKickHappensOnce() {
        Guild guild = Guild.installed("123456789012345678", "223456789012345678", null, T0);

        assertThat(guild.kick(null, T1)).isTrue();
        assertThat(guild.kick(null, T1)).isFalse();
        assertThat(guild.status).isEqualTo(GuildStatus.KICKED);
    }

    @Test
    void theSameOwnerAgainIsNoChange() {
        Guild guild = Guild.installed("123456789012345678", "223456789012345678", null, T0);

        assertThat(guild.changeOwner("223456789012345678", null, T1)).isFalse();
        assertThat(guild.changeOwner("323456789012345678", null, T1)).isTrue();
        assertThat(guild.ownerId).isEqualTo("323456789012345678");
        assertThat(guild.installerUserId).isEqualTo("223456789012345678");
    }

    @Test
    void aDeletionHappensOnceAndEndsEverything() {
        Guild guild = Guild.installed("123456789012345678", "223456789012345678", null, T0);

        assertThat(guild.delete(T1)).isTrue();
        assertThat(guild.delete(T1)).isFalse();
        assertThat(guild.kick(null, T1)).isFalse();
        assertThatThrownBy(() -> guild.changeOwner("323456789012345678", null, T1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anInstallTriedAgainAfterTheKickThatFollowedItOnDiscordChangesNothing() {
        Guild guild = Guild.installed("123456789012345678", "223456789012345678", T0, T0);
        assertThat(guild.kick(T1, T1)).isTrue();

        assertThat(guild.install("223456789012345678", T0, T1)).isFalse();
        assertThat(guild.status).isEqualTo(GuildStatus.KICKED);
        // a later install on Discord is a reinstall
        assertThat(guild.install("223456789012345678", T1.plusSeconds(60), T1)).isTrue();
    }

    @Test
    void ownerChangesAppliedOutOfOrderLeaveTheLatestOwner() {
        Guild guild = Guild.installed("123456789012345678", "223456789012345678", T0, T0);

        assertThat(guild.changeOwner("423456789012345678", T1.plusSeconds(20), T1)).isTrue();
        assertThat(guild.changeOwner("323456789012345678", T1.plusSeconds(10), T1)).isFalse();
        assertThat(guild.ownerId).isEqualTo("423456789012345678");
    }

    @Test
    void anOwnerChangeTriedAgainAfterALaterKickIsStillApplied() {
        Guild guild = Guild.installed("123456789012345678", "223456789012345678", T0, T0);
        assertThat(guild.kick(T1.plusSeconds(30), T1)).isTrue();

        // the owner changed before the kick; its call came after it: who owns the guild is another fact than whether the bot is in it
        assertThat(guild.changeOwner("323456789012345678", T1.plusSeconds(10), T1)).isTrue();
        assertThat(guild.ownerId).isEqualTo("323456789012345678");
        assertThat(guild.install("223456789012345678", T1.plusSeconds(60), T1)).isTrue();
        assertThat(guild.ownerId).as("a reinstall keeps the owner").isEqualTo("323456789012345678");
    }

    @Test
    void aReinstallTriedAgainAfterALaterOwnerChangeIsStillApplied() {
        Guild guild = Guild.installed("123456789012345678", "223456789012345678", T0, T0);
        assertThat(guild.kick(T1, T1)).isTrue();
        assertThat(guild.changeOwner("323456789012345678", T1.plusSeconds(30), T1)).isTrue();

        assertThat(guild.install("223456789012345678", T1.plusSeconds(20), T1)).isTrue();
        assertThat(guild.status).isEqualTo(GuildStatus.INSTALLED);
        assertThat(guild.ownerId).isEqualTo("323456789012345678");
    }

    @Test
    void aKickThatOvertookItsInstallKeepsTheGuildKickedWhenTheInstallComes() {
        Guild guild = Guild.kickedUnseen("123456789012345678", T1, T1);

        assertThat(guild.install("223456789012345678", T0, T1)).isFalse();
        assertThat(guild.status).isEqualTo(GuildStatus.KICKED);
        assertThat(guild.install("223456789012345678", T1.plusSeconds(60), T1)).isTrue();
        assertThat(guild.ownerId).isEqualTo("223456789012345678");
    }

    @Test
    void callsThatSayNoTimeAreAppliedInTheOrderTheyCome() {
        Guild guild = Guild.installed("123456789012345678", "223456789012345678", T0, T0);
        assertThat(guild.kick(T1, T1)).isTrue();

        assertThat(guild.install("223456789012345678", null, T1)).isTrue();
    }
}
