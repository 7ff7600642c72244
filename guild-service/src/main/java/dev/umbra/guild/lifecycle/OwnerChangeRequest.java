package dev.umbra.guild.lifecycle;

import dev.umbra.platform.web.DiscordId;
import jakarta.validation.constraints.NotNull;

public record OwnerChangeRequest(@NotNull @DiscordId String ownerId) {
}
