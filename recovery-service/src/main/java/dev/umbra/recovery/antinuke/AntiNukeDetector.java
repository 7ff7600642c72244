package dev.umbra.recovery.antinuke;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.umbra.events.recovery.AntiNukeTriggered;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.storage.NativeSelects;
import dev.umbra.platform.workqueue.WorkQueues;
import dev.umbra.platform.readmodel.GuildPlans;
import dev.umbra.recovery.snapshot.GuildLocks;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The anti-nuke detector. Entries are stored once per Discord entry id (a repeat changes nothing) and
 * each new one is held against the rules of its action: when an actor's entries of that action within
 * a window of the rule's length that contains the entry reach its threshold, whatever order they came
 * in, that is a burst → AntiNukeTriggered(guild, pattern, actor) → on plans with anti-nuke, a response
 * on the {@value AntiNukeResponse#QUEUE} queue. A burst triggers once: a burst within a window of it,
 * before or after, extends it instead. An incident spans every entry of its bursts, not only the entries
 * whose arrival found them (out of order, that one may be neither the first nor the last). All of a guild's entries are judged one request at a time (the
 * guild's anti-nuke lock), and the windows are counted from the table, so a restart loses nothing and a
 * burst spanning one is still one burst. A burst that ended longer than {@code respond-within} ago is
 * recorded and announced, but not responded to. The entries of Umbra's own bot, and of {@code exempt-actors}, are
 * stored, never judged.
 */
@ApplicationScoped
public class AntiNukeDetector {

    /** An audit-log entry as the bot forwards it. */
    public record Entry(String entryId, String action, String actorId, String targetId, Instant occurredAt) {
    }

    private static final String INSERT = """
            insert into audit_log_entry (guild_id, entry_id, action, actor_id, target_id, occurred_at)
            values (:guildId, :entryId, :action, :actorId, :targetId, :at) on conflict do nothing""";
    private static final String AROUND = """
            select occurred_at from audit_log_entry
            where guild_id = $1 and actor_id = $2 and action = $3 and occurred_at between $4 and $5""";
    /**
     * The incident a burst may belong to: of those begun by a window after its last entry ($4), the one that
     * went on latest. An actor's incidents of a pattern follow one another: if any of those reaches to within
     * a window before the burst's first entry, this one does.
     */
    private static final String INCIDENT_NEAR = """
            select cast(id as text), first_at, last_at from anti_nuke_incident where guild_id = $1 and actor_id = $2 and pattern = $3
              and first_at <= $4
            order by last_at desc limit 1""";
    private static final String EXTEND = """
            update anti_nuke_incident set first_at = least(first_at, :first), last_at = greatest(last_at, :last) where id = :id""";
    private static final String OPEN = """
            insert into anti_nuke_incident (id, guild_id, actor_id, pattern, first_at, last_at, triggered_at, acted)
            values (:id, :guildId, :actorId, :pattern, :first, :last, :now, :acted)""";

    private final List<BurstRule> rules;
    private final Duration respondWithin;
    private final Set<String> exempt;
    private final GuildPlans plans;
    private final OutboxWriter outbox;
    private final WorkQueues queues;
    private final Clock clock;

    public AntiNukeDetector(AntiNukeSettings settings, GuildPlans plans, OutboxWriter outbox, WorkQueues queues, Clock clock) {
        this.rules = settings.rules().entrySet().stream()
                .map(rule -> new BurstRule(rule.getKey(), rule.getValue().action(), rule.getValue().threshold(), rule.getValue().window()))
                .toList();
        this.respondWithin = settings.respondWithin();
        this.exempt = settings.exemptActors().orElse(Set.of());
        this.plans = plans;
        this.outbox = outbox;
        this.queues = queues;
        this.clock = clock;
    }

    /** Records the entries in order; returns the patterns they triggered. {@code ownBot}: Umbra's bot user's id. */
    @DatabaseGuard
    @WithTransaction
    public Uni<List<String>> record(String guildId, List<Entry> entries, String ownBot) {
        List<String> triggered = new ArrayList<>();
        Uni<Void> done = GuildLocks.lock("anti-nuke", guildId);
        for (Entry entry : entries) {
            boolean judged = !entry.actorId().equals(ownBot) && !exempt.contains(entry.actorId());
            done = done.chain(() -> recordOne(guildId, entry, judged, triggered));
        }
        return done.replaceWith(triggered);
    }

    private Uni<Void> recordOne(String guildId, Entry entry, boolean judged, List<String> triggered) {
        return Panache.getSession().chain(session -> session.createNativeQuery(INSERT)
                .setParameter("guildId", guildId).setParameter("entryId", entry.entryId()).setParameter("action", entry.action())
                .setParameter("actorId", entry.actorId()).setParameter("targetId", entry.targetId()).setParameter("at", entry.occurredAt())
                .executeUpdate()
                .chain(inserted -> {
                    Uni<Void> done = Uni.createFrom().voidItem();
                    if (inserted == 0 || !judged) {
                        return done;
                    }
                    for (BurstRule rule : rules) {
                        if (rule.action().equals(entry.action())) {
                            done = done.chain(() -> judge(guildId, entry, rule, triggered));
                        }
                    }
                    return done;
                }));
    }

    private Uni<Void> judge(String guildId, Entry entry, BurstRule rule, List<String> triggered) {
        return Panache.getSession().chain(session -> NativeSelects.select(session, AROUND, guildId, entry.actorId(), rule.action(),
                        rule.earliestWith(entry.occurredAt()), rule.latestWith(entry.occurredAt()))
                .map(NativeSelects.column(Instant.class))
                .chain(around -> {
                    BurstRule.Span burst = rule.burstAt(around, entry.occurredAt()).orElse(null);
                    if (burst == null) {
                        return Uni.createFrom().voidItem();
                    }
                    return NativeSelects.select(session, INCIDENT_NEAR, guildId, entry.actorId(), rule.pattern(), rule.latestWith(burst.last()))
                            .chain(near -> {
                                if (!near.isEmpty() && rule.continues(instant(near.get(0)[1]), instant(near.get(0)[2]), burst)) {
                                    return session.createNativeQuery(EXTEND).setParameter("id", UUID.fromString((String) near.get(0)[0]))
                                            .setParameter("first", burst.first()).setParameter("last", burst.last())
                                            .executeUpdate().replaceWithVoid();
                                }
                                triggered.add(rule.pattern());
                                return trigger(guildId, entry, rule, burst);
                            });
                }));
    }

    private Uni<Void> trigger(String guildId, Entry entry, BurstRule rule, BurstRule.Span burst) {
        UUID incident = UUID.randomUUID();
        Instant now = clock.instant();
        boolean recent = !burst.last().isBefore(now.minus(respondWithin));
        return plans.entitlementsOf(guildId).chain(entitlements -> Panache.getSession()
                .chain(session -> session.createNativeQuery(OPEN).setParameter("id", incident).setParameter("guildId", guildId)
                        .setParameter("actorId", entry.actorId()).setParameter("pattern", rule.pattern())
                        .setParameter("first", burst.first()).setParameter("last", burst.last()).setParameter("now", now)
                        .setParameter("acted", entitlements.antiNuke() && recent).executeUpdate())
                .chain(() -> outbox.publish(new AntiNukeTriggered(guildId, rule.pattern(), List.of(entry.actorId()))))
                .chain(() -> {
                    if (!entitlements.antiNuke() || !recent) {
                        return Uni.createFrom().voidItem();
                    }
                    ObjectNode payload = JsonNodeFactory.instance.objectNode().put("guild_id", guildId).put("incident_id", incident.toString());
                    payload.putArray("suspects").add(entry.actorId());
                    return queues.queue(AntiNukeResponse.QUEUE).enqueue(incident.toString(), payload, clock.instant());
                }));
    }

    private static Instant instant(Object value) {
        if (value instanceof OffsetDateTime time) {
            return time.toInstant();
        }
        if (value instanceof Instant time) {
            return time;
        }
        return ((java.sql.Timestamp) value).toInstant().atOffset(ZoneOffset.UTC).toInstant();
    }
}
