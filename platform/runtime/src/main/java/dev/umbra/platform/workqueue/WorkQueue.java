package dev.umbra.platform.workqueue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.umbra.platform.storage.NativeSelects;
import dev.umbra.platform.storage.Statements;
import dev.umbra.platform.storage.StorageFaults;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * One leased work queue: rows of the platform table {@code work_item} with this queue's name.
 *
 * <p>A claim is a short transaction: due items (and items whose lease ran out) are locked with
 * {@code FOR UPDATE SKIP LOCKED}, so concurrent workers take disjoint rows, and each gets a lease
 * ({@code lease_until}) and a new fencing token. The work happens outside any transaction; its outcome
 * is written only where the row still carries the worker's token.
 *
 * <p>Leases are measured on the database's clock ({@code now()}), the one clock every replica shares: on
 * a replica's own, a clock ahead by more than a lease would take items over while their worker still
 * holds them. Due times are the application's {@link Clock}, which may be moved (a test's, a local run's
 * clock control) and is only ever compared with itself.
 *
 * <p>Why one platform table keyed by queue name rather than a table per queue: the columns that make a
 * queue (status, attempts, due time, lease, token, error) are the same for every queue, so one
 * migration, one set of statements (constants, no SQL assembled from table names) and one set of
 * gauges serve every service; what differs per queue is the payload, which is JSON the handler reads.
 */
public final class WorkQueue {

    static final String PENDING = "pending";
    static final String LEASED = "leased";
    static final String DONE = "done";
    static final String DEAD = "dead";

    private static final Logger LOG = Logger.getLogger(WorkQueue.class);
    private static final Duration RECORD_RETRY_DELAY = Duration.ofMillis(100);
    private static final Duration RECORD_RETRY_MAX_DELAY = Duration.ofMillis(500);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String ENQUEUE = """
            insert into work_item (queue, item_key, payload, due_at, ready_at, created_at)
            values (?1, ?2, cast(cast(?3 as text) as jsonb), ?4, ?4, ?5)
            on conflict (queue, item_key) do nothing""";
    private static final String SCHEDULE = """
            insert into work_item (queue, item_key, payload, due_at, ready_at, created_at)
            values (?1, ?2, cast(cast(?3 as text) as jsonb), ?4, ?4, ?5)
            on conflict (queue, item_key) do update
            set payload = excluded.payload, status = 'pending', attempts = 0, failures = 0, due_at = excluded.due_at,
                ready_at = excluded.ready_at, lease_until = null, lease_token = null, last_error = null, finished_at = null,
                try_started = false, abandoned_claims = 0""";
    private static final String CLAIM = """
            with due as (
                select queue, item_key from work_item
                where queue = $1
                  and ((status = 'pending' and due_at <= $2) or (status = 'leased' and lease_until <= now()))
                order by due_at
                limit $3
                for update skip locked)
            , claimed as (
                update work_item w
                set status = 'leased', lease_until = now() + make_interval(secs => cast($4 as double precision)),
                    lease_token = nextval('work_item_lease_token'),
                    abandoned_claims = w.abandoned_claims + case when w.status = 'leased' and w.try_started then 1 else 0 end,
                    try_started = false
                from due where w.queue = due.queue and w.item_key = due.item_key
                returning w.item_key, w.payload::text as payload, w.attempts, w.failures, w.lease_token, w.due_at, w.abandoned_claims)
            select item_key, payload, attempts, failures, lease_token, abandoned_claims from claimed order by due_at, item_key""";
    /**
     * $4 cast alike where it is used twice: PostgreSQL would deduce varchar for one use and text for the
     * other and refuse to prepare it (an ERROR in its log each time; Vert.x then prepared it again with types of its own).
     * $8 cast for the same reason: a parameter that is a CASE's only result is deduced as text, which the column refuses.
     */
    private static final String RECORD = """
            update work_item
            set status = cast($4 as varchar), attempts = $5, failures = $10, due_at = coalesce($6, due_at), last_error = $7,
                lease_until = null, lease_token = null, finished_at = case when cast($4 as varchar) in ('done', 'dead') then cast($8 as timestamptz) end,
                try_started = false, abandoned_claims = case when $9 then 0 else abandoned_claims end, ready_at = coalesce($11, ready_at)
            where queue = $1 and item_key = $2 and lease_token = $3 and status = 'leased'""";
    private static final String BACKLOG = """
            select count(*) filter (where status = 'pending' and due_at <= $2) as due,
                   count(*) filter (where status = 'pending' and due_at > $2) as waiting,
                   count(*) filter (where status = 'leased') as leased,
                   count(*) filter (where status = 'dead') as dead,
                   coalesce(extract(epoch from $2 - min(ready_at) filter (where status in ('pending', 'leased') and ready_at <= $2)), 0)
                       as oldest_seconds
            from work_item where queue = $1 and status <> 'done'""";
    private static final String DEAD_LETTERS = """
            select item_key, payload::text as payload, attempts, last_error, finished_at, created_at from work_item
            where queue = $1 and status = 'dead' order by finished_at limit $2""";
    private static final String REVIVE = """
            update work_item set status = 'pending', attempts = 0, failures = 0, try_started = false, abandoned_claims = 0, due_at = $3, ready_at = $3,
                finished_at = null
            where queue = $1 and item_key = $2 and status = 'dead'""";
    private static final String HOLDS = """
            update work_item set lease_until = greatest(lease_until, now() + make_interval(secs => cast(?4 as double precision)))
            where queue = ?1 and item_key = ?2 and lease_token = ?3 and status = 'leased'
            returning item_key""";
    private static final String PROGRESSED = """
            update work_item set lease_until = greatest(lease_until, now() + make_interval(secs => cast(?4 as double precision))),
                abandoned_claims = 0
            where queue = ?1 and item_key = ?2 and lease_token = ?3 and status = 'leased'
            returning item_key""";
    private static final String TRY_STARTS = """
            update work_item set try_started = true
            where queue = $1 and item_key = $2 and lease_token = $3 and status = 'leased'""";
    private static final String STATUS = "select status from work_item where queue = $1 and item_key = $2";
    private static final String ANY_UNFINISHED = """
            select exists (select 1 from work_item where queue = $1 and starts_with(item_key, $2) and status <> 'done')""";

    /** A dead item, for operators. */
    public record DeadLetter(String key, JsonNode payload, int attempts, String reason, Instant diedAt, Instant createdAt) {
    }

    private final String name;
    private final Pool pool;
    private final Clock clock;
    private final WorkQueueConfig.Settings settings;
    private final RetryRules rules;
    private final MeterRegistry registry;
    private final Map<String, AtomicLong> backlog;
    private final AtomicLong oldestSeconds = new AtomicLong();
    private final List<Meter> gauges = new ArrayList<>();
    /** When this replica last saw its work on the queue go on: a round started, a claim, an outcome recorded, a lease renewed. */
    private volatile long progressedAt = System.nanoTime();

    WorkQueue(String name, Pool pool, Clock clock, WorkQueueConfig.Settings settings, MeterRegistry registry) {
        this.name = name;
        this.pool = pool;
        this.clock = clock;
        this.settings = settings;
        this.rules = new RetryRules(settings, () -> ThreadLocalRandom.current().nextDouble());
        this.registry = registry;
        this.backlog = Map.of("due", new AtomicLong(), "waiting", new AtomicLong(), "leased", new AtomicLong(), "dead", new AtomicLong());
        backlog.forEach((state, count) -> gauges.add(Gauge.builder("umbra.work.queue.backlog", count, AtomicLong::get)
                .description("Items of a work queue by state: due now, waiting for their time, leased to a worker, dead")
                .tags("queue", name, "state", state).register(registry)));
        gauges.add(Gauge.builder("umbra.work.queue.oldest.ready", oldestSeconds, AtomicLong::get)
                .description("How long the oldest unfinished item of a work queue has been due").baseUnit("seconds")
                .tag("queue", name).register(registry));
    }

    public String name() {
        return name;
    }

    public WorkQueueConfig.Settings settings() {
        return settings;
    }

    /**
     * Takes the queue's gauges out of the registry as the application stops. The registry can outlive the
     * application (a restart in the same JVM: dev mode, tests), and registering a gauge that is still there
     * hands back the old one, which would go on reading the stopped application's numbers.
     */
    void unregister() {
        gauges.forEach(registry::remove);
    }

    /**
     * No round started, no claim, no outcome and no renewed lease on this replica for longer than a lease: a try under way neither
     * ends nor renews its lease (a statement lost on the network, a completion that never comes), and by now
     * another round may take its item over.
     */
    boolean stalled() {
        return System.nanoTime() - progressedAt > settings.lease().toNanos();
    }

    /**
     * A round's start counts as progress: otherwise a round begun after a quiet spell longer than a lease, whose
     * first statement waits (a lock, a busy pool), would look stalled at the next tick and be overtaken.
     */
    void roundStarted() {
        sawProgress();
    }

    private void sawProgress() {
        progressedAt = System.nanoTime();
    }

    /** Adds an item inside the caller's Hibernate Reactive transaction; an item with the same key already there is left alone. */
    public Uni<Void> enqueue(String key, JsonNode payload, Instant dueAt) {
        return write(ENQUEUE, key, payload, dueAt);
    }

    /** Adds the item, or puts an existing one (finished or not) back in line at {@code dueAt} with fresh attempts; any lease on it is void. */
    public Uni<Void> schedule(String key, JsonNode payload, Instant dueAt) {
        return write(SCHEDULE, key, payload, dueAt);
    }

    private Uni<Void> write(String statement, String key, JsonNode payload, Instant dueAt) {
        String json = toJson(payload);
        return Panache.getSession().chain(session -> session.createNativeQuery(statement)
                .setParameter(1, name).setParameter(2, key).setParameter(3, json)
                .setParameter(4, utc(dueAt)).setParameter(5, utc(clock.instant()))
                .executeUpdate()).replaceWithVoid();
    }

    /**
     * For work done in the caller's Hibernate Reactive transaction: true if the item still carries this
     * claim's token, and then the row stays locked until that transaction ends, so nobody takes the
     * item over meanwhile (claims skip locked rows), and the lease is renewed for a full lease from now
     * (a long job that keeps working keeps its item; a crashed one loses it one lease after its last
     * step). False: do nothing, the lease is someone else's.
     */
    public Uni<Boolean> holdsLease(WorkItem item) {
        return renew(HOLDS, item);
    }

    /**
     * {@link #holdsLease}, for the transaction that saves a step of a long job as done: real progress, so the
     * count of abandoned claims starts anew (workers that died on the item died on steps now behind it). Not
     * for a mere renewal before any work is saved: a try that always dies after one would never be counted.
     */
    public Uni<Boolean> progressed(WorkItem item) {
        return renew(PROGRESSED, item);
    }

    private Uni<Boolean> renew(String statement, WorkItem item) {
        return Panache.getSession().chain(session -> session.createNativeQuery(statement)
                .setParameter(1, name).setParameter(2, item.key()).setParameter(3, item.leaseToken())
                .setParameter(4, leaseSeconds())
                .getResultList()).invoke(this::sawProgress).map(rows -> !rows.isEmpty());
    }

    /**
     * Claims up to a batch of due items, each with a lease and a new fencing token, in one short transaction,
     * and hands them out longest due first (an UPDATE's RETURNING keeps no order): while a breaker lets one
     * trial call through, the item tried is then the one that waited longest, not the same one every round.
     * An item taken again after a try of it began and its lease ran out with nothing recorded (and no
     * progress, see {@link #progressed}) counts one more abandoned claim.
     */
    public Uni<List<WorkItem>> claim() {
        Instant now = clock.instant();
        return pool.withTransaction(connection -> connection.preparedQuery(CLAIM)
                        .execute(Tuple.of(name, utc(now), settings.batchSize(), leaseSeconds())))
                .invoke(this::sawProgress)
                .map(rows -> {
                    long claimedAt = System.nanoTime();
                    List<WorkItem> items = new ArrayList<>();
                    rows.forEach(row -> items.add(new WorkItem(name, row.getString("item_key"), fromJson(row), row.getInteger("attempts"),
                            row.getLong("lease_token"), claimedAt, row.getInteger("abandoned_claims"), row.getInteger("failures"))));
                    return items;
                });
    }

    /**
     * Records what became of a claimed item, if the row still carries the item's fencing token.
     * Returns false when it did not: the lease ran out and another worker took the item over (or the
     * item was rescheduled), and that worker's outcome is the one that counts.
     */
    public Uni<Boolean> record(WorkItem item, Outcome outcome) {
        return record(item, outcome, true);
    }

    /** {@code tried} false: put back before its try began, which ends no run of abandoned claims (a killer stays counted). */
    private Uni<Boolean> record(WorkItem item, Outcome outcome, boolean tried) {
        Instant now = clock.instant();
        RetryRules.Next next = rules.after(outcome, item.attempts(), item.failures(), now);
        Tuple values = Tuple.tuple(List.of(name, item.key(), item.leaseToken(), next.status(), next.attempts()))
                .addValue(next.dueAt() == null ? null : utc(next.dueAt())).addValue(next.error()).addValue(utc(now)).addValue(tried)
                .addValue(next.failures()).addValue(next.readyAt() == null ? null : utc(next.readyAt()));
        // fenced by the lease token, so trying it again is safe; a fault left unhandled would leave the try
        // started with nothing recorded, which the next claim counts as an abandoned claim. Tried again for up to half
        // a lease: an outcome held back by a short outage of the database is recorded once it is back, where given up
        // it would keep the item (a recurring job's one item, say) from everyone until its lease ran out
        return Statements.execute(pool, RECORD, values)
                .onFailure(StorageFaults::isTransient).retry().withBackOff(RECORD_RETRY_DELAY, RECORD_RETRY_MAX_DELAY)
                .expireIn(settings.lease().toMillis() / 2)
                .invoke(this::sawProgress)
                .map(rows -> {
                    boolean accepted = rows.rowCount() == 1;
                    String counted = accepted ? outcomeName(outcome, next) : "lease_lost";
                    Counter.builder("umbra.work.queue.outcomes").description("Outcomes of tried and deferred work, by queue")
                            .tags("queue", name, "outcome", counted).register(registry).increment();
                    if (!accepted) {
                        LOG.infof("work queue %s: item %s was taken over after its lease ran out; this worker's %s is dropped", name, item.key(),
                                outcome.getClass().getSimpleName());
                    } else if (DEAD.equals(next.status())) {
                        LOG.warnf("work queue %s: item %s is dead: %s", name, item.key(), next.error());
                    }
                    return accepted;
                });
    }

    /**
     * One round for {@code handler}: claim a batch (nothing while the handler is not ready), try up to
     * {@code concurrency} items at once, record each outcome. Returns how many were claimed.
     */
    public Uni<Integer> runOnce(WorkHandler handler) {
        return round(handler).map(Round::claimed);
    }

    private Uni<Round> round(WorkHandler handler) {
        if (!handler.ready()) {
            return Uni.createFrom().item(new Round(0, 0));
        }
        Context caller = Vertx.currentContext();
        return claim().chain(items -> Multi.createFrom().iterable(items)
                .onItem().transformToUni(item -> tryOne(caller, handler, item)).merge(settings.concurrency())
                .collect().asList()
                .map(finished -> new Round(items.size(), (int) finished.stream().filter(Boolean::booleanValue).count())));
    }

    /**
     * Rounds one after the other while the last claimed a whole batch and finished every item of it: a
     * backlog is worked off at the speed of its tries, not one batch per poll interval. A round with an
     * item put back (a failure, an outage, a deferral) ends it, so an item due again at once cannot spin;
     * so does {@code stopping}, checked before each further round. The gauges are refreshed after every
     * round, so a long drain shows its backlog going down. Returns how many items were claimed.
     */
    public Uni<Integer> drain(WorkHandler handler, BooleanSupplier stopping) {
        return Multi.createBy().repeating().uni(() -> round(handler).call(this::measure))
                .whilst(round -> round.claimed() == settings.batchSize() && round.finished() == round.claimed() && !stopping.getAsBoolean())
                .collect().in(() -> new int[1], (claimed, round) -> claimed[0] += round.claimed())
                .map(claimed -> claimed[0]);
    }

    /** What a round did: items claimed, and those of them finished (done or dead at once) with this worker's outcome. */
    private record Round(int claimed, int finished) {
    }

    private Uni<Boolean> tryOne(Context caller, WorkHandler handler, WorkItem item) {
        if (item.abandonedClaims() > settings.maxAbandonedClaims()) {
            return abandoned(caller, handler, item);
        }
        if (System.nanoTime() - item.claimedAtNanos() >= settings.lease().toNanos() / 2) {
            // A round leases its whole batch at the claim and tries it a few at a time: an item whose turn comes with
            // less than half its lease left could outlive it while another worker takes it over and tries it too.
            return record(item, Outcome.deferred("its lease ran short before its turn in the round", clock.instant()), false)
                    .replaceWith(false).onFailure().recoverWithItem(false);
        }
        return Statements.execute(pool, TRY_STARTS, Tuple.of(name, item.key(), item.leaseToken()))
                .chain(rows -> rows.rowCount() == 1 ? attempt(caller, handler, item) : Uni.createFrom().item(false))
                .onFailure().recoverWithItem(error -> {
                    LOG.debugf("work queue %s: item %s not tried, its start was not recorded: %s", name, item.key(), error);
                    return false;
                });
    }

    /** Its tries began and their leases ran out, again and again, with nothing recorded: not tried, its handler says what becomes of it. */
    private Uni<Boolean> abandoned(Context caller, WorkHandler handler, WorkItem item) {
        String reason = "its lease ran out " + item.abandonedClaims() + " times in a row with nothing recorded: its tries kill or hang the worker";
        LOG.warnf("work queue %s: item %s is not tried again: %s", name, item.key(), reason);
        return OwnContext.runOn(caller, () -> handler.abandoned(item, reason))
                .chain(outcome -> record(item, outcome).map(accepted -> accepted && !(outcome instanceof Outcome.Deferred)))
                .onFailure().recoverWithItem(error -> {
                    LOG.warnf("work queue %s: what becomes of abandoned item %s was not recorded (%s); it is taken again after its lease", name,
                            item.key(), error.toString());
                    return false;
                });
    }

    private Uni<Boolean> attempt(Context caller, WorkHandler handler, WorkItem item) {
        return OwnContext.runOn(caller, () -> handler.handle(item))
                // a row another transaction changed meanwhile is a race lost, not the item's fault: tried again, never dead for it
                .onFailure().recoverWithItem(error -> StorageFaults.isTransient(error) || StorageFaults.rowChangedMeanwhile(error)
                        ? Outcome.unavailable(error.toString(), null)
                        : Outcome.failed(error.toString()))
                .chain(outcome -> record(item, outcome)
                        .map(accepted -> accepted && (outcome instanceof Outcome.Done || outcome instanceof Outcome.Poison))
                        // the other tries of the round carry on; this item is taken again once its lease runs out
                        .onFailure().recoverWithItem(error -> {
                            LOG.infof("work queue %s: the outcome of item %s was not recorded (%s); it is tried again after its lease", name,
                                    item.key(), error.toString());
                            return false;
                        }));
    }

    /** Refreshes the backlog and oldest-ready gauges of this queue. */
    public Uni<Void> measure() {
        return Statements.execute(pool, BACKLOG, Tuple.of(name, utc(clock.instant()))).invoke(rows -> {
            Row row = rows.iterator().next();
            backlog.forEach((state, count) -> count.set(row.getLong(state)));
            oldestSeconds.set(row.getNumeric("oldest_seconds").longValue());
        }).replaceWithVoid();
    }

    /** The oldest {@code limit} dead items. */
    public Uni<List<DeadLetter>> deadLetters(int limit) {
        return Statements.execute(pool, DEAD_LETTERS, Tuple.of(name, limit)).map(rows -> {
            List<DeadLetter> dead = new ArrayList<>();
            rows.forEach(row -> dead.add(new DeadLetter(row.getString("item_key"), fromJson(row), row.getInteger("attempts"),
                    row.getString("last_error"), row.getOffsetDateTime("finished_at").toInstant(),
                    row.getOffsetDateTime("created_at").toInstant())));
            return dead;
        });
    }

    /** Puts a dead item back in line with fresh attempts; false if there is no dead item with that key. */
    public Uni<Boolean> revive(String key) {
        return Statements.execute(pool, REVIVE, Tuple.of(name, key, utc(clock.instant()))).map(rows -> rows.rowCount() == 1);
    }

    /** The item's status (pending, leased, done, dead), or null for no such item. */
    public Uni<String> status(String key) {
        return Statements.execute(pool, STATUS, Tuple.of(name, key))
                .map(rows -> rows.size() == 0 ? null : rows.iterator().next().getString("status"));
    }

    /**
     * Read in the caller's Hibernate Reactive transaction: whether an item whose key starts with {@code keyPrefix} is
     * unfinished — still to be tried (pending), tried by a worker now (leased), or dead (an operator's to decide).
     */
    public Uni<Boolean> anyUnfinished(String keyPrefix) {
        return Panache.getSession().chain(session -> NativeSelects.select(session, ANY_UNFINISHED, name, keyPrefix))
                .map(NativeSelects.single(Boolean.class));
    }

    private static String outcomeName(Outcome outcome, RetryRules.Next next) {
        if (DEAD.equals(next.status())) {
            return "dead_lettered";
        }
        if (outcome instanceof Outcome.Done) {
            return "done";
        }
        if (outcome instanceof Outcome.Deferred) {
            return "deferred";
        }
        if (outcome instanceof Outcome.Scheduled) {
            return "scheduled";
        }
        return outcome instanceof Outcome.Unavailable ? "unavailable" : "failed";
    }

    private double leaseSeconds() {
        return settings.lease().toMillis() / 1000.0;
    }

    private static OffsetDateTime utc(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }

    private static String toJson(JsonNode payload) {
        try {
            return JSON.writeValueAsString(payload);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode fromJson(Row row) {
        try {
            return JSON.readTree(row.getString("payload"));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
