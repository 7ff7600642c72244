package dev.umbra.platform.inbox;

import dev.umbra.events.EventDecodingException;
import dev.umbra.events.EventEnvelope;
import dev.umbra.platform.inbox.InboxMetrics.Outcome;
import dev.umbra.platform.storage.NativeSelects;
import dev.umbra.platform.storage.StorageFaults;
import dev.umbra.platform.trace.TraceContext;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.kafka.api.IncomingKafkaRecordBatchMetadata;
import io.smallrye.common.vertx.VertxContext;
import io.quarkus.vertx.core.runtime.context.VertxContextSafetyToggle;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

/**
 * The consuming side of every service, one batch of Kafka records at a time. Per partition, in offset
 * order: decode each envelope, then in ONE transaction claim the batch's events in
 * {@code processed_event} with one statement (duplicates claim nothing and are skipped) and apply the
 * handlers of the claimed ones in record order; their writes and outbox events commit with the claims.
 * Consecutive records of a type with a {@link BatchEventHandler}, or of any type for the {@link AnyEventHandler}, are applied in one call (a run). The
 * batch is acked after every commit.
 *
 * <p>What happens to a failure depends on what it is:
 * <ul>
 * <li>an infrastructure fault ({@link StorageFaults#isTransient}, a timed-out handler, an open circuit),
 * or a race lost to another transaction on the same rows ({@link StorageFaults#lostRace}):
 * the same records are tried again, without limit, with capped jittered backoff. The partition waits;
 * nothing behind is applied first, nothing is dead-lettered. Safe, because a retried transaction whose
 * commit did happen claims nothing the second time;</li>
 * <li>a record that can never be applied (it does not decode, or its handler throws
 * {@link RejectedEventException}): it goes to {@code <topic>.dlq} at once;</li>
 * <li>any other handler failure: the batch is split. The records before the culprit are applied, the
 * culprit alone is tried {@link InboxConfig#maxAttempts()} times and then dead-lettered, and the
 * records after it carry on as a batch. When a run failed, the batch is first applied again one record
 * at a time, which tells the culprit.</li>
 * </ul>
 *
 * <pre>{@code
 * @Incoming(EventChannels.GUILD)
 * Uni<Void> consume(Message<List<byte[]>> batch) {
 *     return inbox.consume("licensing", batch, handlers);
 * }
 * }</pre>
 */
@ApplicationScoped
public class Inbox {

    private static final Logger LOG = Logger.getLogger(Inbox.class);
    /** Races in a row that are normal when two channels replay the same aggregates at once; more is worth a WARN. */
    private static final int CONFLICTS_BEFORE_WARNING = 5;
    /**
     * Races lost in a row after which the failure is taken for the record's own: a race passes once the winner
     * has committed, while a unique key the handler itself breaks every time (two records of one batch writing
     * one row, a handler inserting what is already there) looks the same and would hold its partition for ever.
     */
    private static final int CONFLICTS_BEFORE_BLAME = 10;
    /** One connection not acquired in time is no outage: the warning waits for the third attempt in a row. */
    private static final int FAULTS_BEFORE_WARNING = 3;
    /**
     * Attempts of several records in a row that ran out of time (a statement cut at its timeout, a handler past the
     * attempt's) after which they are applied in two halves, one after the other: the same records sent again
     * unchanged would run out of time again for as long as the database stays that slow.
     */
    private static final int TIMEOUTS_BEFORE_HALVING = 2;

    /**
     * A batch's claims in record order (claim_order numbers the rows as they are inserted), as six arrays: one statement
     * text whatever the batch's size, rather than a VALUES list with six parameters a record (2,800 for a batch of 470)
     * for the server to parse and plan; an event twice in the batch is claimed once.
     */
    private static final String CLAIM = """
            insert into processed_event (consumer, event_id, event_type, aggregate_type, aggregate_id, recorded_at)
            select $1::text, e.event_id, e.event_type, e.aggregate_type, e.aggregate_id, e.recorded_at
            from unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) with ordinality
                as e(event_id, event_type, aggregate_type, aggregate_id, recorded_at, position)
            order by e.position
            on conflict do nothing returning event_id""";

    private final DeadLetters deadLetters;
    private final InboxMetrics metrics;
    private final Clock clock;
    private final InboxConfig config;
    private final Tracer tracer;
    private final Map<String, Long> lastWaitingWarning = new ConcurrentHashMap<>();

    public Inbox(DeadLetters deadLetters, InboxMetrics metrics, Clock clock, InboxConfig config, Tracer tracer) {
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.clock = clock;
        this.config = config;
        this.tracer = tracer;
    }

    /** Applies a batch of records (a channel with {@code batch=true}) and acks it once all of it is done. */
    @SuppressWarnings("unchecked")
    public Uni<Void> consume(String consumer, Message<List<byte[]>> batch, EventHandlers handlers) {
        IncomingKafkaRecordBatchMetadata<?, byte[]> metadata = batch.getMetadata(IncomingKafkaRecordBatchMetadata.class)
                .orElseThrow(() -> new IllegalStateException("the inbox consumes batches of Kafka records (batch=true)"));
        Map<TopicPartition, List<ConsumerRecord<?, byte[]>>> byPartition = new LinkedHashMap<>();
        for (ConsumerRecord<?, byte[]> record : metadata.getRecords()) {
            byPartition.computeIfAbsent(new TopicPartition(record.topic(), record.partition()), p -> new ArrayList<>())
                    .add(record);
        }
        // Partitions are independent: each drains on its own duplicated context (its own session and
        // transaction), so one that waits holds up no other of this batch.
        Context arrival = Vertx.currentContext();
        if (arrival == null) {
            throw new IllegalStateException("the inbox must be called on a Vert.x context (a @Incoming method)");
        }
        List<Uni<Void>> partitions = new ArrayList<>();
        for (List<ConsumerRecord<?, byte[]>> records : byPartition.values()) {
            Context own = VertxContext.createNewDuplicatedContext(arrival);
            VertxContextSafetyToggle.setContextSafe(own, true);
            Run run = new Run(consumer, own);
            List<Item> items = records.stream().map(record -> Item.of(record, handlers)).toList();
            Uni<Void> partition = Uni.createFrom().voidItem().emitOn(run.context);
            for (int from = 0; from < items.size(); from += config.batchSize()) {
                List<Item> chunk = items.subList(from, Math.min(items.size(), from + config.batchSize()));
                partition = partition.chain(() -> run.drain(chunk));
            }
            partitions.add(partition);
        }
        Uni<Void> all = partitions.isEmpty() ? Uni.createFrom().voidItem()
                : Uni.join().all(partitions).andCollectFailures().replaceWithVoid().emitOn(onContext(arrival));
        return all.chain(() -> Uni.createFrom().completionStage(batch.ack()));
    }

    /** One record, decoded as far as it goes. */
    private record Item(ConsumerRecord<?, byte[]> record, EventEnvelope envelope, EventHandlers.Route route,
            Object event, RuntimeException undecodable) {

        static Item of(ConsumerRecord<?, byte[]> record, EventHandlers handlers) {
            try {
                EventEnvelope envelope = IncomingEvents.decode(record);
                EventHandlers.Route route = handlers.routeOf(envelope.eventType()).orElse(null);
                Object event = route == null ? null : route.decode(envelope);
                return new Item(record, envelope, route, event, null);
            } catch (EventDecodingException e) {
                return new Item(record, null, null, null, e);
            }
        }

        String eventType() {
            return envelope == null ? IncomingEvents.optional(record.headers(), dev.umbra.events.EventHeaders.EVENT_TYPE)
                    : envelope.eventType();
        }

        String position() {
            return record.topic() + "-" + record.partition() + "@" + record.offset();
        }

        AnyEventHandler.RecordPosition recordPosition() {
            return new AnyEventHandler.RecordPosition(record.topic(), record.partition(), record.offset());
        }
    }

    /**
     * A failed transaction, and which record of it failed (-1: none in particular, such as the claim);
     * for a run of records applied together, its first, and the run.
     */
    private static final class AttemptFailed extends RuntimeException {
        final int index;
        final List<Item> run;

        AttemptFailed(int index, Throwable cause) {
            this(index, null, cause);
        }

        AttemptFailed(int index, List<Item> run, Throwable cause) {
            super(cause);
            this.index = index;
            this.run = run;
        }

        /** A run of more than one record failed: which of them is to blame is not known. */
        boolean inRun() {
            return run != null && run.size() > 1;
        }
    }

    /**
     * A run of a {@link BatchEventHandler}'s records that failed, so its batch is applied again one record at a
     * time: the records it failed by, and how; or none and no failure, when it ran out of time or lost a race.
     */
    private record FailedRun(Set<Item> blamed, Throwable failure) {
        static final FailedRun NOT_BY_ITS_RECORDS = new FailedRun(Set.of(), null);
    }

    /** The work on one partition of a batch: its consumer and the Vert.x context every transaction runs on. */
    private final class Run {
        private final String consumer;
        private final Context own;
        private final Executor context;

        Run(String consumer, Context own) {
            this.consumer = consumer;
            this.own = own;
            this.context = onContext(own);
        }

        /** Applies the items in order, however many attempts and splits that takes. */
        Uni<Void> drain(List<Item> items) {
            for (int i = 0; i < items.size(); i++) {
                if (items.get(i).undecodable() != null) {
                    Item poison = items.get(i);
                    List<Item> after = items.subList(i + 1, items.size());
                    return drainApplicable(items.subList(0, i))
                            .chain(() -> deadLetter(poison, poison.undecodable()))
                            .chain(() -> drain(after));
                }
            }
            return drainApplicable(items);
        }

        private Uni<Void> drainApplicable(List<Item> items) {
            List<Item> handled = items.stream().filter(item -> item.route() != null).toList();
            items.stream().filter(item -> item.route() == null)
                    .forEach(item -> metrics.outcome(consumer, item.eventType(), Outcome.IGNORED));
            return handled.isEmpty() ? Uni.createFrom().voidItem() : attempt(handled, 0, 0);
        }

        private Uni<Void> attempt(List<Item> items, int transientFailures, int failures) {
            return attempt(items, transientFailures, failures, null, 0);
        }

        /**
         * @param transientFailures infrastructure faults in a row so far (they set the backoff, never a limit)
         * @param failures          deterministic failures of a single record so far
         * @param afterFailedRun    null: runs of a {@link BatchEventHandler}'s records are applied together.
         *                          Otherwise every record on its own, after a run failed
         * @param lostRaces         races lost in a row so far; an infrastructure fault between two starts the count anew, and a
         *                          record blamed for its races keeps its count, so that its next race is blamed at once
         */
        private Uni<Void> attempt(List<Item> items, int transientFailures, int failures, FailedRun afterFailedRun, int lostRaces) {
            boolean together = afterFailedRun == null;
            return Uni.createFrom().deferred(() -> applyInOneTransaction(items, together))
                    .runSubscriptionOn(context)
                    .invoke(() -> {
                        if (afterFailedRun != null && afterFailedRun.failure() != null) {
                            // the handler's outcome must equal applying the records one by one: here it did not
                            Item first = items.stream().filter(afterFailedRun.blamed()::contains).findFirst().orElse(items.get(0));
                            LOG.warnf("%s applied one by one the %d records of a run of %s at %s that failed as a run: its batch handler "
                                    + "is wrong for them: %s", consumer, afterFailedRun.blamed().size(), first.eventType(),
                                    first.position(), rootMessage(afterFailedRun.failure()));
                        }
                    })
                    .onFailure().recoverWithUni(error -> {
                        AttemptFailed failed = error instanceof AttemptFailed f ? f : new AttemptFailed(-1, error);
                        Throwable cause = failed.getCause();
                        Item culprit = failed.index >= 0 ? items.get(failed.index) : items.get(0);
                        if (isTransient(cause)) {
                            metrics.failedAttempt(consumer, culprit.eventType(), InboxMetrics.Fault.TRANSIENT);
                            if (transientFailures + 1 >= FAULTS_BEFORE_WARNING) {
                                warnWaiting(culprit, cause, transientFailures + 1);
                            } else {
                                LOG.debugf("%s tries %s again after a passing fault: %s", consumer, culprit.position(), rootMessage(cause));
                            }
                            // a run, or a batch, that ran out of time may simply be too long for the time an attempt has
                            boolean outOfTime = cause instanceof HandlerTimeoutException || StorageFaults.statementTimedOut(cause);
                            if (outOfTime && items.size() > 1 && transientFailures + 1 >= TIMEOUTS_BEFORE_HALVING) {
                                LOG.debugf("%s applies the %d records from %s in halves: %s", consumer, items.size(), items.get(0).position(),
                                        rootMessage(cause));
                                return pause(transientFailures).chain(() -> inHalves(items, afterFailedRun));
                            }
                            FailedRun next = together && failed.inRun() && outOfTime ? FailedRun.NOT_BY_ITS_RECORDS : afterFailedRun;
                            return pause(transientFailures).chain(() -> attempt(items, transientFailures + 1, failures, next, 0));
                        }
                        boolean lostRace = StorageFaults.lostRace(cause);
                        if (lostRace && lostRaces + 1 < CONFLICTS_BEFORE_BLAME) {
                            // Another transaction (another partition, another channel) wrote the same rows first and
                            // ours rolled back whole: run again, and the handler finds what the winner wrote.
                            metrics.failedAttempt(consumer, culprit.eventType(), InboxMetrics.Fault.CONFLICT);
                            if (transientFailures + 1 >= CONFLICTS_BEFORE_WARNING) {
                                warnWaiting(culprit, cause, transientFailures + 1);
                            } else {
                                LOG.debugf("%s lost a race at %s and runs again: %s", consumer, culprit.position(), rootMessage(cause));
                            }
                            // a run that keeps colliding may collide with itself (two of its records writing one row)
                            FailedRun next = together && failed.inRun() ? FailedRun.NOT_BY_ITS_RECORDS : afterFailedRun;
                            return pause(transientFailures).chain(() -> attempt(items, transientFailures + 1, failures, next, lostRaces + 1));
                        }
                        metrics.failedAttempt(consumer, culprit.eventType(), InboxMetrics.Fault.DETERMINISTIC);
                        if (together && failed.inRun()) {
                            // which record of the run it was: the same records again, each applied on its own
                            LOG.debugf("%s applies the run at %s one record at a time: %s", consumer, culprit.position(), rootMessage(cause));
                            return attempt(items, 0, failures, new FailedRun(records(failed.run), cause), 0);
                        }
                        if (items.size() > 1) {
                            if (cause instanceof RejectedEventException) {
                                // its dead-lettering is reported on its own
                                LOG.debugf("%s splits its batch at %s: %s", consumer, culprit.position(), rootMessage(cause));
                            } else {
                                LOG.warnf("%s splits its batch at %s to apply the rest without it: %s", consumer, culprit.position(),
                                        rootMessage(cause));
                            }
                            // a culprit of a run that failed by its records has been tried once already, in the run
                            return split(items, failed.index, afterFailedRun != null && afterFailedRun.blamed().contains(culprit) ? 1 : 0,
                                    lostRace ? lostRaces + 1 : 0);
                        }
                        if (cause instanceof RejectedEventException || failures + 1 >= config.maxAttempts()) {
                            return deadLetter(culprit, cause);
                        }
                        LOG.warnf(cause, "%s failed to apply %s at %s (attempt %d of %d)", consumer, culprit.eventType(),
                                culprit.position(), failures + 1, config.maxAttempts());
                        return pause(failures).chain(() -> attempt(items, 0, failures + 1, null, lostRace ? lostRaces + 1 : 0));
                    });
        }

        /**
         * The first half of {@code items}, then the second: in record order, each in a transaction of its own, and one
         * record at a time if they were so already.
         */
        private Uni<Void> inHalves(List<Item> items, FailedRun afterFailedRun) {
            List<Item> first = items.subList(0, items.size() / 2);
            List<Item> second = items.subList(items.size() / 2, items.size());
            FailedRun each = afterFailedRun == null ? null : FailedRun.NOT_BY_ITS_RECORDS;
            return attempt(first, 0, 0, each, 0).chain(() -> attempt(second, 0, 0, each, 0));
        }

        /** Applies the records before the culprit, then the culprit on its own, then the rest. */
        private Uni<Void> split(List<Item> items, int culprit, int earlierFailures, int culpritsLostRaces) {
            if (culprit < 0) {
                Uni<Void> oneByOne = Uni.createFrom().voidItem();
                for (Item item : items) {
                    oneByOne = oneByOne.chain(() -> attempt(List.of(item), 0, 0));
                }
                return oneByOne;
            }
            List<Item> before = items.subList(0, culprit);
            List<Item> after = items.subList(culprit + 1, items.size());
            return (before.isEmpty() ? Uni.createFrom().voidItem() : attempt(before, 0, 0))
                    .chain(() -> attempt(List.of(items.get(culprit)), 0, 1 + earlierFailures, null, culpritsLostRaces))
                    .chain(() -> after.isEmpty() ? Uni.createFrom().voidItem() : attempt(after, 0, 0));
        }

        private Uni<Void> applyInOneTransaction(List<Item> items, boolean together) {
            Set<Item> applied = records(List.of());
            List<Runnable> afterCommit = AfterCommit.open(own);
            return Panache.withTransaction(() -> claim(items)
                            .onFailure().transform(error -> new AttemptFailed(-1, error))
                            .chain(claimed -> applyInOrder(items, claimed, applied, 0, together)))
                    .onTermination().invoke((ignored, failure, cancelled) -> AfterCommit.close(own, afterCommit, failure == null && !cancelled))
                    .invoke(() -> {
                        for (Item item : items) {
                            boolean wasApplied = applied.contains(item);
                            metrics.outcome(consumer, item.eventType(), wasApplied ? Outcome.PROCESSED : Outcome.DUPLICATE);
                            if (wasApplied) {
                                metrics.lag(consumer, item.envelope().recordedAt(), clock.instant());
                            } else {
                                LOG.debugf("%s skips duplicate %s %s", consumer, item.eventType(), item.envelope().eventId());
                            }
                        }
                    })
                    .replaceWithVoid();
        }

        /** Applies each claimed event once, in record order (a batch may hold the same event twice). */
        private Uni<Void> applyInOrder(List<Item> items, Set<UUID> claimed, Set<Item> applied, int from, boolean together) {
            for (int i = from; i < items.size(); i++) {
                Item item = items.get(i);
                if (claimed.remove(item.envelope().eventId())) {
                    applied.add(item);
                    int index = i;
                    if (item.route().together()) {
                        List<Item> run = new ArrayList<>(List.of(item));
                        int last = i;
                        while (together && last + 1 < items.size() && items.get(last + 1).route() == item.route()) {
                            last++;
                            Item next = items.get(last);
                            if (claimed.remove(next.envelope().eventId())) {
                                run.add(next);
                                applied.add(next);
                            }
                        }
                        int after = last + 1;
                        return applyTogether(run)
                                .onFailure().transform(error -> new AttemptFailed(index, run, error))
                                .chain(() -> applyInOrder(items, claimed, applied, after, together));
                    }
                    Span span = startSpan(item);
                    // current on this partition's own context until the handler is done: the events its
                    // handler publishes carry this span, so the trace goes on to their consumers
                    Scope scope = span.makeCurrent();
                    return Uni.createFrom().deferred(() -> item.route().apply(item.event(), item.envelope(), item.recordPosition())
                                    .emitOn(context).chain(Run::flushAndForget))
                            .onTermination().invoke((ignored, failure, cancelled) -> {
                                if (failure != null || cancelled) {
                                    span.setStatus(StatusCode.ERROR, cancelled ? "timed out" : failure.toString());
                                }
                                scope.close();
                                span.end();
                            })
                            .ifNoItem().after(config.attemptTimeout())
                            .failWith(() -> new HandlerTimeoutException(item, config.attemptTimeout()))
                            // the timeout fires on a timer thread, and a handler may finish on a thread of its
                            // client: the transaction goes on, or rolls back, on its own context only
                            .emitOn(context)
                            .onFailure().transform(error -> new AttemptFailed(index, error))
                            .chain(() -> applyInOrder(items, claimed, applied, index + 1, together));
                }
            }
            return Uni.createFrom().voidItem();
        }

        /** A run of a {@link BatchEventHandler}'s (or the {@link AnyEventHandler}'s) records in one call: a span each, ended when the run is. */
        private Uni<Void> applyTogether(List<Item> run) {
            List<Span> spans = run.stream().map(this::startSpan).toList();
            List<EventHandlers.Arrival> events = new ArrayList<>(run.size());
            for (int i = 0; i < run.size(); i++) {
                Item item = run.get(i);
                events.add(new EventHandlers.Arrival(item.event(), item.envelope(), item.recordPosition(), TraceContext.of(spans.get(i))));
            }
            Item first = run.get(0);
            return Uni.createFrom().deferred(() -> first.route().applyAll(events).emitOn(context).chain(Run::flushAndForget))
                    .onTermination().invoke((ignored, failure, cancelled) -> spans.forEach(span -> {
                        if (failure != null || cancelled) {
                            span.setStatus(StatusCode.ERROR, cancelled ? "timed out" : failure.toString());
                        }
                        span.end();
                    }))
                    .ifNoItem().after(config.attemptTimeout())
                    .failWith(() -> new HandlerTimeoutException(first, config.attemptTimeout()))
                    .emitOn(context);
        }

        /**
         * The record's writes go out now, and its entities leave the session: otherwise every flush of a
         * batch (each query and native statement of each later record flushes first) walks every entity the
         * batch loaded so far, and a batch of n records costs n² (measured: most of licensing's CPU during a
         * drain). A write the database refuses then also fails as its own record's, not a later one's.
         */
        private static Uni<Void> flushAndForget() {
            return Panache.getSession().chain(session -> session.flush().invoke(session::clear));
        }

        /** A consumer span, child of the span that published the event (its traceparent header), if any. */
        private Span startSpan(Item item) {
            EventEnvelope envelope = item.envelope();
            return tracer.spanBuilder(item.record().topic() + " process")
                    .setParent(TraceContext.parentOf(envelope.traceContext()))
                    .setSpanKind(SpanKind.CONSUMER)
                    .setAttribute("messaging.system", "kafka")
                    .setAttribute("messaging.destination.name", item.record().topic())
                    .setAttribute("messaging.consumer.group.name", consumer)
                    .setAttribute("messaging.message.id", envelope.eventId().toString())
                    .setAttribute("umbra.event_type", envelope.eventType())
                    .startSpan();
        }

        /** Claims the items' events in one statement; the ids it returns are the ones not seen before. */
        private Uni<Set<UUID>> claim(List<Item> items) {
            int size = items.size();
            UUID[] eventIds = new UUID[size];
            String[] eventTypes = new String[size];
            String[] aggregateTypes = new String[size];
            String[] aggregateIds = new String[size];
            Instant[] recordedAt = new Instant[size];
            for (int i = 0; i < size; i++) {
                EventEnvelope envelope = items.get(i).envelope();
                eventIds[i] = envelope.eventId();
                eventTypes[i] = envelope.eventType();
                aggregateTypes[i] = envelope.aggregateType();
                aggregateIds[i] = envelope.aggregateId();
                recordedAt[i] = envelope.recordedAt();
            }
            return Panache.getSession()
                    .chain(session -> NativeSelects.select(session, CLAIM, consumer, eventIds, eventTypes, aggregateTypes, aggregateIds, recordedAt))
                    .map(NativeSelects.column(UUID.class))
                    .map(HashSet::new);
        }

        private Uni<Void> deadLetter(Item item, Throwable error) {
            return deadLetter(item, error, 0);
        }

        private Uni<Void> deadLetter(Item item, Throwable error, int failedSends) {
            return deadLetters.send(consumer, item.record(), error)
                    .emitOn(context)
                    .invoke(() -> metrics.outcome(consumer, item.eventType(), Outcome.DEAD_LETTERED))
                    .onFailure().recoverWithUni(sendFailure -> {
                        // Kafka did not take it: a fault that passes like any other; the record waits and is tried again.
                        metrics.failedAttempt(consumer, item.eventType(), InboxMetrics.Fault.TRANSIENT);
                        warnWaiting(item, sendFailure, failedSends + 1);
                        return pause(failedSends).chain(() -> deadLetter(item, error, failedSends + 1));
                    });
        }

        private Uni<Void> pause(int failures) {
            long cap = config.maxBackoff().toMillis();
            long exponential = config.initialBackoff().toMillis() << Math.min(failures, 20);
            long base = Math.min(cap, exponential);
            long jittered = base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1);
            return Uni.createFrom().voidItem().onItem().delayIt().by(Duration.ofMillis(Math.max(1, jittered)))
                    .emitOn(context);
        }

        private void warnWaiting(Item item, Throwable cause, int attempts) {
            long now = System.nanoTime();
            Long last = lastWaitingWarning.get(consumer);
            if (last == null || now - last >= config.waitingWarningInterval().toNanos()) {
                lastWaitingWarning.put(consumer, now);
                LOG.warnf("%s waits at %s for an infrastructure fault to pass (%d attempts so far; retried without limit): %s",
                        consumer, item.position(), attempts, rootMessage(cause));
            }
        }
    }

    /** A set of records by identity: a batch may hold the same record twice, and records' equality compares them whole. */
    private static Set<Item> records(List<Item> items) {
        Set<Item> set = Collections.newSetFromMap(new IdentityHashMap<>());
        set.addAll(items);
        return set;
    }

    /** Faults that pass: the database or Kafka is away, a guard refused the call, or a handler ran out of time. */
    static boolean isTransient(Throwable error) {
        return StorageFaults.isTransient(error);
    }

    private static String rootMessage(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == error ? error.toString() : error + " (" + root + ")";
    }

    /** Hibernate Reactive needs one Vert.x context per session, also for retries that a timer starts. */
    private static Executor onContext(Context context) {
        return task -> context.runOnContext(ignored -> task.run());
    }

    /** A handler that did not finish within the attempt timeout: a transient fault, tried again. */
    static final class HandlerTimeoutException extends java.util.concurrent.TimeoutException {
        HandlerTimeoutException(Item item, Duration timeout) {
            super(item.eventType() + " at " + item.position() + " took longer than " + timeout);
        }
    }
}
