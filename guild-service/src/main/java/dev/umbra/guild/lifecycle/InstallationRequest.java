package dev.umbra.guild.lifecycle;

import dev.umbra.platform.web.DiscordId;
import jakarta.validation.constraints.NotNull;

/** @param installerUserId the Discord user (a snowflake) who added the bot */
public record InstallationRequest(
        @NotNull @DiscordId String installerUserId) {
}
