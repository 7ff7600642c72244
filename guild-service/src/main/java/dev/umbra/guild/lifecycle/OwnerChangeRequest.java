package dev.umbra.guild.lifecycle;

import dev.umbra.platform.web.DiscordId;
import jakarta.validation.constraints.NotNull;
import java.time.Instant;

/** @param occurredAt when the owner changed, on Discord's clock (optional): a change overtaken by a later one changes nothing */
public record OwnerChangeRequest(@NotNull @DiscordId String ownerId, Instant occurredAt) {
}
