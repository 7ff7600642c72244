package dev.umbra.guild.lifecycle;

import dev.umbra.platform.web.DiscordId;
import jakarta.validation.constraints.NotNull;
import java.time.Instant;

/**
 * @param installerUserId the Discord user (a snowflake) who added the bot
 * @param occurredAt when the bot was added, on Discord's clock (optional): a call that comes after a later change was applied changes nothing
 */
public record InstallationRequest(
        @NotNull @DiscordId String installerUserId, Instant occurredAt) {
}
