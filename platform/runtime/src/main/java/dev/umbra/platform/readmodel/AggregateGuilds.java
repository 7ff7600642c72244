package dev.umbra.platform.readmodel;

import dev.umbra.events.EventEnvelope;
import dev.umbra.platform.inbox.ReadModel;
import dev.umbra.platform.storage.NativeSelects;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Read model (table {@code aggregate_guild}): the guild of each aggregate that belongs to one guild (a
 * license, a subscription, a restore job, …; {@link GuildOwnership}), learned from any event of the
 * aggregate that names the guild (LicenseGranted, SubscriptionStarted, RestoreStarted, …). An
 * aggregate's guild never changes, so the first one learned stays and events in any order, or learned by
 * two transactions at once, leave the same row. A service keeps it by feeding it from the consumers of
 * the topics whose aggregates it needs ({@code EventHandlers.builder().feeding(aggregateGuilds)}); it
 * runs inside the caller's session.
 */
@ApplicationScoped
public class AggregateGuilds implements ReadModel {

    private static final String LEARN = "insert into aggregate_guild (aggregate_type, aggregate_id, guild_id, learned_at) "
            + "values (?1, ?2, ?3, cast(?4 as timestamptz)) on conflict do nothing";
    private static final String LEARN_ALL = "insert into aggregate_guild (aggregate_type, aggregate_id, guild_id, learned_at) "
            + "select aggregate_type, aggregate_id, guild_id, cast($4 as timestamptz) "
            + "from unnest($1::text[], $2::text[], $3::text[]) as lesson(aggregate_type, aggregate_id, guild_id) "
            + "on conflict do nothing returning aggregate_type, aggregate_id";
    private static final String GUILD_OF = "select guild_id from aggregate_guild where aggregate_type = $1 and aggregate_id = $2";

    private final Clock clock;

    public AggregateGuilds(Clock clock) {
        this.clock = clock;
    }

    @Override
    public void learnFrom(Feed feed) {
        feed.onEvery(this::learnFrom);
    }

    Uni<Void> learnFrom(EventEnvelope envelope) {
        return GuildOwnership.guildTaughtBy(envelope.aggregateType(), envelope.aggregateId(), envelope.payload())
                .map(guildId -> learn(envelope.aggregateType(), envelope.aggregateId(), guildId).replaceWithVoid())
                .orElseGet(() -> Uni.createFrom().voidItem());
    }

    /**
     * Remembers the aggregate's guild unless one is known already. True when this call taught it: the
     * moment for whoever waited for it (audit's late attribution) to catch up, in the same transaction.
     */
    public Uni<Boolean> learn(String aggregateType, String aggregateId, String guildId) {
        return Panache.getSession().chain(session -> session.createNativeQuery(LEARN)
                        .setParameter(1, aggregateType)
                        .setParameter(2, aggregateId)
                        .setParameter(3, guildId)
                        .setParameter(4, clock.instant().atOffset(ZoneOffset.UTC))
                        .executeUpdate())
                .map(inserted -> inserted > 0);
    }

    /** An aggregate and the guild it belongs to. */
    public record Lesson(String aggregateType, String aggregateId, String guildId) {
    }

    /**
     * {@link #learn} of each lesson, with one statement; returns the lessons this call taught, in their
     * order. The aggregates must be distinct.
     */
    public Uni<List<Lesson>> learnAll(List<Lesson> lessons) {
        int count = lessons.size();
        String[] types = new String[count];
        String[] ids = new String[count];
        String[] guildIds = new String[count];
        for (int i = 0; i < count; i++) {
            types[i] = lessons.get(i).aggregateType();
            ids[i] = lessons.get(i).aggregateId();
            guildIds[i] = lessons.get(i).guildId();
        }
        return Panache.getSession().chain(session -> NativeSelects.select(session, LEARN_ALL, types, ids, guildIds, clock.instant()))
                .map(rows -> {
                    Set<List<String>> taught = new HashSet<>();
                    rows.forEach(row -> taught.add(List.of((String) row[0], (String) row[1])));
                    return lessons.stream().filter(lesson -> taught.contains(List.of(lesson.aggregateType(), lesson.aggregateId()))).toList();
                });
    }

    public Uni<Optional<String>> guildOf(String aggregateType, String aggregateId) {
        return Panache.getSession().chain(session -> NativeSelects.select(session, GUILD_OF, aggregateType, aggregateId))
                .map(NativeSelects.column(String.class))
                .map(found -> found.stream().findFirst());
    }
}
