package dev.umbra.recovery.antinuke;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The detector's rules, by pattern name: {@code recovery.anti-nuke.rules.<pattern>.action|threshold|window}
 * (the defaults are in application.properties: three channel or role deletions, or five bans, within
 * ten seconds, by one actor).
 */
@ConfigMapping(prefix = "recovery.anti-nuke")
public interface AntiNukeSettings {

    Map<String, Rule> rules();

    /**
     * How recent a burst's last entry must be for the response to act on it. Older ones (a backlog the bot forwards
     * after a restart, a page of last week's log) are recorded and announced, but nobody loses roles today for them.
     */
    @WithDefault("PT10M")
    Duration respondWithin();

    /**
     * Discord users, besides Umbra's own bot (always exempt, asked of Discord), whose entries are stored but never judged:
     * another bot the guilds trust to delete in bulk, say.
     */
    Optional<Set<String>> exemptActors();

    interface Rule {
        /** Discord's audit-log action the rule counts, by name (CHANNEL_DELETE, MEMBER_BAN_ADD, ROLE_DELETE, …). */
        String action();

        int threshold();

        Duration window();
    }
}
