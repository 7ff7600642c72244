package dev.umbra.audit.attribution;

import com.fasterxml.jackson.databind.JsonNode;
import dev.umbra.events.Aggregates;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How an event finds its guild, from its aggregate and its payload alone (no I/O):
 * <ol>
 * <li>a payload field {@code guild_id} names it, or the aggregate is a guild (its id is the guild id);</li>
 * <li>otherwise the guild of another aggregate may tell it: the event's own aggregate (a license is
 * LicenseGranted's guild's) and the aggregates its payload refers to by id ({@code subscription_id},
 * {@code license_id}, {@code invoice_id}, …), looked up in the {@code guild_of} read model.</li>
 * </ol>
 * Events of users and billing keys belong to a person, not a guild: they have no guild and wait for none.
 */
public final class AttributionRules {

    /** Aggregates whose id is a guild id. */
    static final Set<String> GUILD_AGGREGATES = Set.of(Aggregates.GUILD, Aggregates.ANTI_NUKE);

    /** Aggregates that belong to one guild, and the payload field by which other events refer to each. */
    static final Map<String, String> GUILD_OWNED = Map.of(
            Aggregates.LICENSE, "license_id",
            Aggregates.SUBSCRIPTION, "subscription_id",
            Aggregates.INVOICE, "invoice_id",
            Aggregates.SNAPSHOT, "snapshot_id",
            Aggregates.RESTORE_JOB, "restore_job_id",
            Aggregates.MEMBER, "member_id");

    private static final String GUILD_ID = "guild_id";
    private static final Pattern DISCORD_ID = Pattern.compile("\\d{17,20}");

    private AttributionRules() {
    }

    /** An aggregate, by type and id. */
    public record AggregateRef(String type, String id) implements Comparable<AggregateRef> {
        @Override
        public int compareTo(AggregateRef other) {
            int byType = type.compareTo(other.type);
            return byType != 0 ? byType : id.compareTo(other.id);
        }

        String lockKey() {
            return "audit-guild-of:" + type + ":" + id;
        }
    }

    /**
     * The guild the event names itself, if it does. Only a Discord id counts: an event whose "guild id"
     * is anything else is stored all the same, with no guild.
     */
    public static Optional<String> namedGuild(String aggregateType, String aggregateId, JsonNode payload) {
        JsonNode guild = payload.get(GUILD_ID);
        if (guild != null && guild.isTextual() && DISCORD_ID.matcher(guild.asText()).matches()) {
            return Optional.of(guild.asText());
        }
        return GUILD_AGGREGATES.contains(aggregateType) && DISCORD_ID.matcher(aggregateId).matches() ? Optional.of(aggregateId)
                : Optional.empty();
    }

    /** The event's own aggregate, if it belongs to one guild: once the event's guild is known, so is the aggregate's. */
    public static Optional<AggregateRef> ownedAggregate(String aggregateType, String aggregateId) {
        return GUILD_OWNED.containsKey(aggregateType) ? Optional.of(new AggregateRef(aggregateType, aggregateId)) : Optional.empty();
    }

    /** The aggregates whose guild is the event's, in a fixed order (locks are taken in it): its own, then those it refers to. */
    public static List<AggregateRef> resolvers(String aggregateType, String aggregateId, JsonNode payload) {
        List<AggregateRef> refs = new ArrayList<>();
        ownedAggregate(aggregateType, aggregateId).ifPresent(refs::add);
        GUILD_OWNED.forEach((type, field) -> {
            JsonNode value = payload.get(field);
            if (value != null && value.isTextual() && !value.asText().isBlank()) {
                AggregateRef ref = new AggregateRef(type, value.asText());
                if (!refs.contains(ref)) {
                    refs.add(ref);
                }
            }
        });
        return refs.stream().sorted().toList();
    }
}
