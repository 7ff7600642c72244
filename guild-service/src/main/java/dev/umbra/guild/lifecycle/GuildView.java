package dev.umbra.guild.lifecycle;

import java.time.Instant;

public record GuildView(String guildId, GuildStatus status, String ownerId, String installerUserId, Instant installedAt) {

    static GuildView of(Guild guild) {
        return new GuildView(guild.guildId, guild.status, guild.ownerId, guild.installerUserId, guild.installedAt);
    }
}
