package dev.umbra.guild.lifecycle;

public enum GuildStatus {
    INSTALLED, KICKED, DELETED
}
