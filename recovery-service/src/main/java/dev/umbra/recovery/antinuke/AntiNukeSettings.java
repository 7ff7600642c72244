package dev.umbra.recovery.antinuke;

import io.smallrye.config.ConfigMapping;
import java.time.Duration;
import java.util.Map;

/**
 * The detector's rules, by pattern name: {@code recovery.anti-nuke.rules.<pattern>.action|threshold|window}
 * (the defaults are in application.properties: three channel or role deletions, or five bans, within
 * ten seconds, by one actor).
 */
@ConfigMapping(prefix = "recovery.anti-nuke")
public interface AntiNukeSettings {

    Map<String, Rule> rules();

    interface Rule {
        /** Discord's audit-log action the rule counts, by name (CHANNEL_DELETE, MEMBER_BAN_ADD, ROLE_DELETE, …). */
        String action();

        int threshold();

        Duration window();
    }
}
