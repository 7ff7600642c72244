package dev.umbra.recovery.snapshot;

import dev.umbra.platform.web.DiscordId;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;

/**
 * A guild's structure as a snapshot keeps it: roles, channels with their permission overwrites, and
 * each member's roles. Ids are Discord's; permissions are Discord's bit sets as decimal strings. The
 * bean constraints are the schema (400); {@link StructureRules} checks what refers to what (422).
 */
public record GuildStructure(
        @NotNull @Size(max = 250) List<@NotNull @Valid Role> roles,
        @NotNull @Size(max = 500) List<@NotNull @Valid Channel> channels,
        @NotNull List<@NotNull @Valid Member> members) {

    /** Discord's channel type of a category, the parent of other channels. */
    public static final int CATEGORY = 4;

    public record Role(
            @NotNull @DiscordId String id,
            @NotBlank @Size(max = 100) String name,
            @Min(0) @Max(0xFFFFFF) int color,
            @NotNull @Pattern(regexp = "\\d{1,20}") String permissions,
            @Min(0) int position,
            boolean hoist,
            boolean mentionable) {
    }

    public record Channel(
            @NotNull @DiscordId String id,
            @NotBlank @Size(max = 100) String name,
            @Min(0) @Max(20) int type,
            @Min(0) int position,
            @DiscordId String parentId,
            @Size(max = 1024) String topic,
            @NotNull @Size(max = 100) List<@NotNull @Valid Overwrite> permissionOverwrites) {
    }

    /** {@code type} 0: the overwrite is a role's, 1: a member's. */
    public record Overwrite(
            @NotNull @DiscordId String id,
            @Min(0) @Max(1) int type,
            @NotNull @Pattern(regexp = "\\d{1,20}") String allow,
            @NotNull @Pattern(regexp = "\\d{1,20}") String deny) {
    }

    public record Member(
            @NotNull @DiscordId String id,
            @NotNull @Size(max = 250) List<@NotNull @DiscordId String> roles) {
    }
}
