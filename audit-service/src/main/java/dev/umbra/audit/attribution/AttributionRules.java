package dev.umbra.audit.attribution;

import com.fasterxml.jackson.databind.JsonNode;
import dev.umbra.platform.readmodel.GuildOwnership;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How an event finds its guild, from its aggregate and its payload alone (no I/O):
 * <ol>
 * <li>the event names it ({@link GuildOwnership#namedGuild}: a payload field {@code guild_id}, or the
 * aggregate is a guild);</li>
 * <li>otherwise the guild of another aggregate may tell it: the event's own aggregate (a license is
 * LicenseGranted's guild's) and the aggregates its payload refers to by id ({@code subscription_id},
 * {@code license_id}, {@code invoice_id}, …), looked up in the platform's read model
 * {@link dev.umbra.platform.readmodel.AggregateGuilds}.</li>
 * </ol>
 * Events of users and billing keys belong to a person, not a guild: they have no guild and wait for none.
 */
public final class AttributionRules {

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

    /** The event's own aggregate, if it belongs to one guild: once the event's guild is known, so is the aggregate's. */
    public static Optional<AggregateRef> ownedAggregate(String aggregateType, String aggregateId) {
        return GuildOwnership.belongsToOneGuild(aggregateType) ? Optional.of(new AggregateRef(aggregateType, aggregateId))
                : Optional.empty();
    }

    /** The aggregates whose guild is the event's, in a fixed order (locks are taken in it): its own, then those it refers to. */
    public static List<AggregateRef> resolvers(String aggregateType, String aggregateId, JsonNode payload) {
        List<AggregateRef> refs = new ArrayList<>();
        ownedAggregate(aggregateType, aggregateId).ifPresent(refs::add);
        GuildOwnership.REFERENCE_FIELDS.forEach((type, field) -> {
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
