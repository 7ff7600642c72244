package dev.umbra.audit.attribution;

import com.fasterxml.jackson.databind.JsonNode;
import dev.umbra.audit.attribution.AttributionRules.AggregateRef;
import dev.umbra.platform.readmodel.AggregateGuilds;
import dev.umbra.platform.readmodel.GuildOwnership;
import dev.umbra.platform.storage.NativeSelects;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Attributes stored events to their guilds ({@link AttributionRules}), inside the inbox transaction
 * that stores them, and keeps the platform's read model {@link AggregateGuilds} from them (rather than
 * feeding it from the consumer: what it learns must be learned under the locks below, and what it
 * learns through a reference, an invoice from its subscription, is audit's rule). An event whose guild
 * the read model does not tell yet waits in {@code audit_unattributed}
 * under each aggregate that would tell it; when that aggregate's guild is learned (LicenseGranted after
 * LicenseExtended, SubscriptionStarted after PaymentSucceeded), the waiting events are attributed, and
 * what they in turn tell (an invoice's guild, from its InvoiceGenerated) is learned the same way.
 *
 * <p>Each attribution records when it became known in record time ({@code known_at}, the clock of the
 * queries' {@code knownAt}): the event's own {@code recorded_at}, or the later {@code recorded_at} of the
 * event that told its guild.
 *
 * <p>Events of one aggregate may be stored by two transactions at once (two partitions, two topics):
 * each takes a transaction-scoped advisory lock per aggregate it reads or teaches the guild of, in a
 * fixed order, so that "no guild known yet, wait" and "guild learned, attribute who waits" never miss
 * each other.
 */
@ApplicationScoped
public class Attributions {

    private static final String ATTRIBUTE = "insert into audit_guild (event_id, occurred_at, guild_id, attributed_at, known_at) "
            + "values (?1, cast(?2 as timestamptz), ?3, cast(?4 as timestamptz), cast(?5 as timestamptz)) on conflict do nothing";
    private static final String LOCK = "select 1 from pg_advisory_xact_lock(hashtextextended($1, 0))";
    private static final String WAIT = "insert into audit_unattributed (event_id, occurred_at, ref_type, ref_id) "
            + "values (?1, cast(?2 as timestamptz), ?3, ?4) on conflict do nothing";
    /**
     * The events that waited for the aggregate's guild, attributed to it and no longer waiting under any
     * aggregate, in one statement (every part reads the same snapshot); returns their aggregates, each with
     * the earliest time its guild is known from them.
     */
    private static final String ATTRIBUTE_WAITING = "with waiting as (select event_id, occurred_at from audit_unattributed "
            + "where ref_type = $1 and ref_id = $2), "
            + "attributed as (insert into audit_guild (event_id, occurred_at, guild_id, attributed_at, known_at) "
            + "select distinct w.event_id, w.occurred_at, cast($3 as varchar), cast($4 as timestamptz), "
            + "greatest(l.recorded_at, cast($5 as timestamptz)) "
            + "from waiting w join audit_log l on l.event_id = w.event_id and l.occurred_at = w.occurred_at on conflict do nothing), "
            + "no_longer_waiting as (delete from audit_unattributed where event_id in (select event_id from waiting)) "
            + "select l.aggregate_type, l.aggregate_id, min(greatest(l.recorded_at, cast($5 as timestamptz))) "
            + "from waiting w join audit_log l on l.event_id = w.event_id and l.occurred_at = w.occurred_at "
            + "group by l.aggregate_type, l.aggregate_id";
    /** Since when the aggregate's guild has been known: its earliest attribution to it (rows without known_at: their attributed_at). */
    private static final String GUILD_KNOWN_SINCE = "select min(coalesce(g.known_at, g.attributed_at)) from audit_log l "
            + "join audit_guild g on g.event_id = l.event_id and g.occurred_at = l.occurred_at "
            + "where l.aggregate_type = $1 and l.aggregate_id = $2 and g.guild_id = $3";

    private final AggregateGuilds guilds;

    public Attributions(AggregateGuilds guilds) {
        this.guilds = guilds;
    }

    /** A stored event, as attribution needs it. */
    public record StoredEvent(UUID eventId, Instant occurredAt, Instant recordedAt, String aggregateType, String aggregateId,
            JsonNode payload) {
    }

    /**
     * The guild the event names, if it does: the audit log attributes such an event to it with the statement
     * that stores it, then calls {@link #afterAttributedToNamed}; any other event goes to {@link #attribute}.
     */
    public static Optional<String> namedGuild(StoredEvent event) {
        return GuildOwnership.namedGuild(event.aggregateType(), event.aggregateId(), event.payload());
    }

    /** True if the event's own aggregate has a guild to learn: an event that names its guild then teaches it ({@link #afterAttributedToNamed}). */
    public static boolean teaches(StoredEvent event) {
        return AttributionRules.ownedAggregate(event.aggregateType(), event.aggregateId()).isPresent();
    }

    /**
     * What an event attributed to the guild it names teaches: its own aggregate's guild, and so the guild of
     * the events that waited for it.
     */
    public Uni<Void> afterAttributedToNamed(StoredEvent event, String guildId, Instant now) {
        return AttributionRules.ownedAggregate(event.aggregateType(), event.aggregateId())
                .map(owned -> learn(owned, guildId, now, event.recordedAt()))
                .orElseGet(() -> Uni.createFrom().voidItem());
    }

    /**
     * Attributes an event that does not name its guild if its guild is known, makes it wait otherwise, and
     * attributes what waited for what it tells.
     */
    public Uni<Void> attribute(StoredEvent event, Instant now) {
        Optional<AggregateRef> owned = AttributionRules.ownedAggregate(event.aggregateType(), event.aggregateId());
        List<AggregateRef> resolvers = AttributionRules.resolvers(event.aggregateType(), event.aggregateId(), event.payload());
        if (resolvers.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        return lockAll(resolvers, 0).chain(() -> firstKnownGuild(resolvers, 0)).chain(found -> {
            if (found.isEmpty()) {
                return waitFor(event, resolvers, 0);
            }
            String guildId = found.get().guildId();
            return knownSince(found.get(), event.recordedAt()).chain(knownAt -> {
                Uni<Void> attributed = attributeTo(event, guildId, now, knownAt);
                return owned.isEmpty() ? attributed : attributed.chain(() -> learn(owned.get(), guildId, now, knownAt));
            });
        });
    }

    /** A resolver whose guild the read model knows. */
    private record KnownGuild(AggregateRef resolver, String guildId) {
    }

    /** The later of the event's recording and the time its resolver's guild became known. */
    private static Uni<Instant> knownSince(KnownGuild known, Instant recordedAt) {
        return Panache.getSession()
                .chain(session -> NativeSelects.select(session, GUILD_KNOWN_SINCE, known.resolver().type(), known.resolver().id(),
                        known.guildId()))
                .map(NativeSelects.single(Instant.class))
                .map(since -> since == null || since.isBefore(recordedAt) ? recordedAt : since);
    }

    private Uni<Void> attributeTo(StoredEvent event, String guildId, Instant now, Instant knownAt) {
        return execute(ATTRIBUTE, event.eventId(), utc(event.occurredAt()), guildId, utc(now), utc(knownAt));
    }

    /**
     * Teaches the read model the aggregate's guild (the first one learned stays) and, when that is news,
     * attributes the events that waited for it. Under the aggregate's lock, so nothing can have started
     * waiting for a guild that was known already.
     */
    private Uni<Void> learn(AggregateRef aggregate, String guildId, Instant now, Instant knownAt) {
        return lock(aggregate)
                .chain(() -> guilds.learn(aggregate.type(), aggregate.id(), guildId))
                .chain(taught -> taught ? attributeWaiting(aggregate, guildId, now, knownAt) : Uni.createFrom().voidItem());
    }

    private Uni<Void> attributeWaiting(AggregateRef aggregate, String guildId, Instant now, Instant knownAt) {
        return Panache.getSession()
                .chain(session -> NativeSelects.select(session, ATTRIBUTE_WAITING, aggregate.type(), aggregate.id(), guildId, now, knownAt))
                .chain(rows -> learnEach(rows, aggregate, guildId, now, 0));
    }

    /**
     * What the newly attributed events tell in turn: an invoice attributed through its subscription is that
     * guild's, known since that event's attribution became known.
     */
    private Uni<Void> learnEach(List<Object[]> aggregates, AggregateRef learned, String guildId, Instant now, int from) {
        for (int i = from; i < aggregates.size(); i++) {
            Object[] row = aggregates.get(i);
            Optional<AggregateRef> owned = AttributionRules.ownedAggregate((String) row[0], (String) row[1]);
            if (owned.isPresent() && !owned.get().equals(learned)) {
                int next = i + 1;
                return learn(owned.get(), guildId, now, NativeSelects.value(row[2], Instant.class))
                        .chain(() -> learnEach(aggregates, learned, guildId, now, next));
            }
        }
        return Uni.createFrom().voidItem();
    }

    private Uni<Optional<KnownGuild>> firstKnownGuild(List<AggregateRef> resolvers, int from) {
        if (from == resolvers.size()) {
            return Uni.createFrom().item(Optional.empty());
        }
        AggregateRef resolver = resolvers.get(from);
        return guilds.guildOf(resolver.type(), resolver.id())
                .chain(found -> found.isPresent() ? Uni.createFrom().item(Optional.of(new KnownGuild(resolver, found.get())))
                        : firstKnownGuild(resolvers, from + 1));
    }

    private Uni<Void> waitFor(StoredEvent event, List<AggregateRef> resolvers, int from) {
        if (from == resolvers.size()) {
            return Uni.createFrom().voidItem();
        }
        AggregateRef ref = resolvers.get(from);
        return execute(WAIT, event.eventId(), utc(event.occurredAt()), ref.type(), ref.id())
                .chain(() -> waitFor(event, resolvers, from + 1));
    }

    private Uni<Void> lockAll(List<AggregateRef> aggregates, int from) {
        return from == aggregates.size() ? Uni.createFrom().voidItem()
                : lock(aggregates.get(from)).chain(() -> lockAll(aggregates, from + 1));
    }

    private Uni<Void> lock(AggregateRef aggregate) {
        return Panache.getSession().chain(session -> NativeSelects.select(session, LOCK, aggregate.lockKey())).replaceWithVoid();
    }

    private static Uni<Void> execute(String sql, Object... parameters) {
        return Panache.getSession().chain(session -> {
            var query = session.createNativeQuery(sql);
            for (int i = 0; i < parameters.length; i++) {
                query.setParameter(i + 1, parameters[i]);
            }
            return query.executeUpdate();
        }).replaceWithVoid();
    }

    private static OffsetDateTime utc(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }
}
