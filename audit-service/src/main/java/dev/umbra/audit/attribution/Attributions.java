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
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
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
    /** The locks of the keys, taken in the array's order. */
    private static final String LOCK_ALL = "select count(*) from (select pg_advisory_xact_lock(hashtextextended(lock_key, 0)) "
            + "from unnest($1::text[]) with ordinality as lock(lock_key, position) order by position) taken";
    private static final String WAIT = "insert into audit_unattributed (event_id, occurred_at, ref_type, ref_id) "
            + "values (?1, cast(?2 as timestamptz), ?3, ?4) on conflict do nothing";
    /**
     * The events that waited for any of the aggregates whose guild was just learned ($1 types, $2 ids, $3 their
     * guilds, $4 since when each is known, in the lessons' order), each attributed by the earliest lesson it
     * waited for and no longer waiting under any aggregate, in one statement (every part reads the same
     * snapshot); returns the aggregates of the released events, each with the lesson that released it, the
     * earliest time its guild is known from them, in the lessons' order.
     */
    private static final String ATTRIBUTE_WAITING = """
            with lesson as (
                select * from unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) with ordinality
                    as l(ref_type, ref_id, guild_id, known_at, position)),
            released as (
                select distinct on (u.event_id, u.occurred_at) u.event_id, u.occurred_at, l.ref_type, l.ref_id, l.guild_id, l.known_at,
                       l.position
                from audit_unattributed u join lesson l on u.ref_type = l.ref_type and u.ref_id = l.ref_id
                order by u.event_id, u.occurred_at, l.position),
            attributed as (
                insert into audit_guild (event_id, occurred_at, guild_id, attributed_at, known_at)
                select r.event_id, r.occurred_at, r.guild_id, cast($5 as timestamptz), greatest(g.recorded_at, r.known_at)
                from released r join audit_log g on g.event_id = r.event_id and g.occurred_at = r.occurred_at
                on conflict do nothing),
            no_longer_waiting as (delete from audit_unattributed where event_id in (select event_id from released))
            select r.ref_type, r.ref_id, r.guild_id, g.aggregate_type, g.aggregate_id, min(greatest(g.recorded_at, r.known_at))
            from released r join audit_log g on g.event_id = r.event_id and g.occurred_at = r.occurred_at
            group by r.ref_type, r.ref_id, r.guild_id, g.aggregate_type, g.aggregate_id
            order by min(r.position), g.aggregate_type, g.aggregate_id""";
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

    /** An event attributed, by the statement that stored it, to the guild it names. */
    public record Named(StoredEvent event, String guildId) {
    }

    /** An aggregate's guild, and since when (record time) it is known. */
    private record Lesson(AggregateRef aggregate, String guildId, Instant knownAt) {
    }

    /**
     * What consecutive events attributed to the guilds they name teach: their own aggregates' guilds, and so
     * the guild of the events that waited for them, with a few statements however many they are. The
     * outcome is the one of the events one after the other as long as an event released by one lesson does
     * not itself belong to the aggregate another lesson of the stretch teaches (an event waiting under one
     * aggregate while belonging to another of the same stretch): no rule makes one wait so. Of two lessons
     * of one aggregate the earlier stays, and a waiting event is released by the earliest lesson it waited for.
     */
    public Uni<Void> afterAttributedToNamed(List<Named> named, Instant now) {
        List<Lesson> lessons = new ArrayList<>();
        for (Named event : named) {
            AttributionRules.ownedAggregate(event.event().aggregateType(), event.event().aggregateId())
                    .ifPresent(owned -> lessons.add(new Lesson(owned, event.guildId(), event.event().recordedAt())));
        }
        return learn(lessons, now);
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
        return lockAll(resolvers).chain(() -> firstKnownGuild(resolvers, 0)).chain(found -> {
            if (found.isEmpty()) {
                return waitFor(event, resolvers, 0);
            }
            String guildId = found.get().guildId();
            return knownSince(found.get(), event.recordedAt()).chain(knownAt -> {
                Uni<Void> attributed = attributeTo(event, guildId, now, knownAt);
                return owned.isEmpty() ? attributed : attributed.chain(() -> learn(List.of(new Lesson(owned.get(), guildId, knownAt)), now));
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
     * Teaches the read model each aggregate's guild (the first one learned stays; of two lessons of one
     * aggregate, the first) and, for those that are news, attributes the events that waited for them, and
     * what these in turn tell (an invoice attributed through its subscription is that guild's). Under the
     * aggregates' locks, so nothing can have started waiting for a guild that was known already.
     */
    private Uni<Void> learn(List<Lesson> lessons, Instant now) {
        Map<AggregateRef, Lesson> byAggregate = new LinkedHashMap<>();
        lessons.forEach(lesson -> byAggregate.putIfAbsent(lesson.aggregate(), lesson));
        if (byAggregate.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        List<AggregateGuilds.Lesson> toLearn = byAggregate.values().stream()
                .map(lesson -> new AggregateGuilds.Lesson(lesson.aggregate().type(), lesson.aggregate().id(), lesson.guildId())).toList();
        return lockAll(byAggregate.keySet())
                .chain(() -> guilds.learnAll(toLearn))
                .chain(taught -> taught.isEmpty() ? Uni.createFrom().voidItem()
                        : attributeWaiting(taught.stream().map(t -> byAggregate.get(new AggregateRef(t.aggregateType(), t.aggregateId()))).toList(),
                                now));
    }

    private Uni<Void> attributeWaiting(List<Lesson> taught, Instant now) {
        int count = taught.size();
        String[] types = new String[count];
        String[] ids = new String[count];
        String[] guildIds = new String[count];
        Instant[] knownAt = new Instant[count];
        for (int i = 0; i < count; i++) {
            Lesson lesson = taught.get(i);
            types[i] = lesson.aggregate().type();
            ids[i] = lesson.aggregate().id();
            guildIds[i] = lesson.guildId();
            knownAt[i] = lesson.knownAt();
        }
        return Panache.getSession()
                .chain(session -> NativeSelects.select(session, ATTRIBUTE_WAITING, types, ids, guildIds, knownAt, now))
                .chain(rows -> {
                    List<Lesson> next = new ArrayList<>();
                    for (Object[] row : rows) {
                        AggregateRef learned = new AggregateRef((String) row[0], (String) row[1]);
                        AttributionRules.ownedAggregate((String) row[3], (String) row[4])
                                .filter(owned -> !owned.equals(learned))
                                .ifPresent(owned -> next.add(new Lesson(owned, (String) row[2], NativeSelects.value(row[5], Instant.class))));
                    }
                    return learn(next, now);
                });
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

    /**
     * The aggregates' locks, in their natural order. A transaction may take several such sets one after
     * the other (a stretch's lessons, what they release, each event's resolvers), so two transactions can
     * still deadlock; the inbox tries a run again one record at a time when PostgreSQL breaks one.
     */
    private static Uni<Void> lockAll(Collection<AggregateRef> aggregates) {
        String[] keys = new TreeSet<>(aggregates).stream().map(AggregateRef::lockKey).toArray(String[]::new);
        return Panache.getSession().chain(session -> NativeSelects.select(session, LOCK_ALL, (Object) keys)).replaceWithVoid();
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
