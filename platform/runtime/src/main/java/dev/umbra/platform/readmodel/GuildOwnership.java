package dev.umbra.platform.readmodel;

import com.fasterxml.jackson.databind.JsonNode;
import dev.umbra.events.Aggregates;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which aggregates belong to one guild and how an event names its guild, from the event alone (no I/O).
 * Users and billing keys belong to a person, not a guild.
 */
public final class GuildOwnership {

    /** Aggregates whose id is a guild id. */
    public static final Set<String> GUILD_AGGREGATES = Set.of(Aggregates.GUILD, Aggregates.ANTI_NUKE);

    /** Aggregates that belong to one guild, and the payload field by which other events refer to each. */
    public static final Map<String, String> REFERENCE_FIELDS = Map.of(
            Aggregates.LICENSE, "license_id",
            Aggregates.SUBSCRIPTION, "subscription_id",
            Aggregates.INVOICE, "invoice_id",
            Aggregates.SNAPSHOT, "snapshot_id",
            Aggregates.RESTORE_JOB, "restore_job_id",
            Aggregates.MEMBER, "member_id");

    private static final String GUILD_ID = "guild_id";
    private static final Pattern DISCORD_ID = Pattern.compile("\\d{17,20}");

    private GuildOwnership() {
    }

    public static boolean belongsToOneGuild(String aggregateType) {
        return REFERENCE_FIELDS.containsKey(aggregateType);
    }

    /**
     * The guild the event names itself, if it does: its payload's {@code guild_id}, or its aggregate's id
     * when the aggregate is a guild. Only a Discord id counts.
     */
    public static Optional<String> namedGuild(String aggregateType, String aggregateId, JsonNode payload) {
        JsonNode guild = payload.get(GUILD_ID);
        if (guild != null && guild.isTextual() && DISCORD_ID.matcher(guild.asText()).matches()) {
            return Optional.of(guild.asText());
        }
        return GUILD_AGGREGATES.contains(aggregateType) && DISCORD_ID.matcher(aggregateId).matches() ? Optional.of(aggregateId)
                : Optional.empty();
    }

    /** The guild the event teaches its own aggregate: one it names, for an aggregate that belongs to one guild. */
    public static Optional<String> guildTaughtBy(String aggregateType, String aggregateId, JsonNode payload) {
        return belongsToOneGuild(aggregateType) ? namedGuild(aggregateType, aggregateId, payload) : Optional.empty();
    }
}
