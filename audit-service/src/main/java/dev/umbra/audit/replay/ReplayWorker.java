package dev.umbra.audit.replay;

import dev.umbra.audit.replay.StoredEvents.Cursor;
import dev.umbra.audit.replay.StoredEvents.StoredEvent;
import dev.umbra.platform.inbox.InboxConfig;
import dev.umbra.platform.storage.StorageFaults;
import dev.umbra.platform.workqueue.Outcome;
import dev.umbra.platform.workqueue.WorkHandler;
import dev.umbra.platform.workqueue.WorkItem;
import dev.umbra.platform.workqueue.WorkQueue;
import dev.umbra.platform.workqueue.WorkQueues;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.TimeoutException;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.jboss.logging.Logger;

/**
 * Publishes a replay one batch per round: reads the next events after its cursor, publishes those
 * whose payload was stored whole, and moves the cursor in a transaction that still holds the item's
 * lease. A worker that dies between the publish and the cursor leaves the batch to be published again
 * by whoever takes the item over: a second copy of an event changes nothing (every consumer dedupes by
 * event id), a missing one would.
 */
@ApplicationScoped
public class ReplayWorker implements WorkHandler {

    private static final Logger LOG = Logger.getLogger(ReplayWorker.class);

    private final StoredEvents events;
    private final ReplayPublisher publisher;
    private final ReplaySettings settings;
    private final Duration replayHorizon;
    private final WorkQueue queue;
    private final Clock clock;

    public ReplayWorker(StoredEvents events, ReplayPublisher publisher, ReplaySettings settings, InboxConfig inbox, WorkQueues queues,
            Clock clock) {
        this.events = events;
        this.publisher = publisher;
        this.settings = settings;
        // half: a copy must reach every consumer while it still keeps its claim of the original, and the claim's clock
        // (processed_at, the database's) starts when that consumer applied it, not at recorded_at; the rest is for its lag
        this.replayHorizon = inbox.dedupe().horizon().dividedBy(2);
        this.queue = queues.queue(Replays.QUEUE);
        this.clock = clock;
    }

    @Override
    public String queue() {
        return Replays.QUEUE;
    }

    @Override
    public Uni<Outcome> handle(WorkItem item) {
        UUID id = UUID.fromString(item.key());
        return Panache.withTransaction(() -> Replay.lockById(id).map(replay -> {
                    if (replay == null || replay.status.finished()) {
                        return null;
                    }
                    replay.status = ReplayStatus.RUNNING;
                    return new Round(replay.replayScope(), replay.cursorEventId == null ? Cursor.START
                            : new Cursor(replay.cursorRecordedAt, replay.cursorSequence, replay.cursorEventId));
                }))
                .chain(round -> round == null ? Uni.createFrom().item(Outcome.done()) : publishNext(item, id, round))
                .onFailure().recoverWithUni(error -> {
                    if (unavailable(error)) {
                        return Uni.createFrom().item(Outcome.unavailable("replay paused: " + error, null));
                    }
                    Outcome failed = Outcome.failed("replay round failed: " + error);
                    // the queue dead-letters the item at its last attempt: the replay must not stay RUNNING after it
                    return item.failures() + 1 >= queue.settings().maxAttempts()
                            ? fail(item, id, "gave up after " + (item.failures() + 1) + " failed rounds: " + error).replaceWith(failed)
                            : Uni.createFrom().item(failed);
                });
    }

    /** A replay whose rounds kill or hang the worker ends FAILED, as one that fails its last attempt does. */
    @Override
    public Uni<Outcome> abandoned(WorkItem item, String reason) {
        return fail(item, UUID.fromString(item.key()), reason).replaceWith(Outcome.poison(reason));
    }

    private Uni<Void> fail(WorkItem item, UUID id, String reason) {
        Instant now = clock.instant();
        return Panache.withTransaction(() -> queue.holdsLease(item).chain(holds -> !holds ? Uni.createFrom().voidItem()
                : Replay.lockById(id).invoke(replay -> {
                    if (replay != null && !replay.status.finished()) {
                        replay.status = ReplayStatus.FAILED;
                        replay.finishedAt = now;
                        replay.note = reason.length() <= 500 ? reason : reason.substring(0, 500);
                        LOG.warnf("replay %s of %s failed after %d events published: %s", id, replay.scope, replay.published, reason);
                    }
                }).replaceWithVoid()));
    }

    private String refusals(Replay replay) {
        List<String> refused = new ArrayList<>();
        if (replay.refusedMasked > 0) {
            refused.add(replay.refusedMasked + " events not replayed: their payload was masked when stored, and a masked payload is not "
                    + "the event that was published");
        }
        if (replay.refusedOld > 0) {
            refused.add(replay.refusedOld + " events not replayed: recorded more than " + replayHorizon + " ago, half the consumers' "
                    + "dedupe horizon (umbra.inbox.dedupe.horizon): a consumer lagging behind the copy could have forgotten the original "
                    + "and apply it twice");
        }
        return refused.isEmpty() ? null : String.join("; ", refused);
    }

    /**
     * The database or Kafka away or slow: the round is tried again, however long that lasts. A refusal Kafka
     * does not call retriable (a record larger than the producer may send, a topic it may not write) is the
     * round's own failure: it counts a failure, and the last one allowed ends the replay FAILED. An unexpected
     * error on the broker's side (UNKNOWN_SERVER_ERROR, which brokers answer during a leader's move or a restart)
     * says nothing about the records: it is the broker's moment, waited out like an outage.
     */
    static boolean unavailable(Throwable error) {
        return StorageFaults.isTransient(error) || error instanceof TimeoutException || kafkaAway(error);
    }

    private static boolean kafkaAway(Throwable error) {
        return StorageFaults.causes(error).stream().anyMatch(cause -> cause instanceof RetriableException || cause instanceof UnknownServerException);
    }

    private record Round(ReplayScope scope, Cursor cursor) {
    }

    private Uni<Outcome> publishNext(WorkItem item, UUID id, Round round) {
        int limit = settings.batchSize();
        Instant horizon = clock.instant().minus(replayHorizon);
        return events.after(round.scope(), round.cursor(), limit).chain(batch -> {
            List<StoredEvent> publishable = batch.stream().filter(event -> !event.masked() && !event.olderThan(horizon)).toList();
            int masked = (int) batch.stream().filter(StoredEvent::masked).count();
            return publisher.publish(id.toString(), publishable, settings.sendTimeout())
                    .chain(() -> advance(item, id, batch, new Counts(publishable.size(), masked, batch.size() - publishable.size() - masked),
                            batch.size() < limit));
        });
    }

    private record Counts(int published, int masked, int old) {
    }

    private Uni<Outcome> advance(WorkItem item, UUID id, List<StoredEvent> batch, Counts counts, boolean last) {
        Instant now = clock.instant();
        return Panache.withTransaction(() -> queue.holdsLease(item).chain(holds -> !holds ? Uni.createFrom().item(Outcome.done())
                : Replay.lockById(id).map(replay -> {
                    replay.published += counts.published();
                    replay.refusedMasked += counts.masked();
                    replay.refusedOld += counts.old();
                    if (!batch.isEmpty()) {
                        StoredEvent end = batch.get(batch.size() - 1);
                        replay.cursorRecordedAt = end.recordedAt();
                        replay.cursorSequence = end.sequence();
                        replay.cursorEventId = end.eventId();
                    }
                    if (replay.status.finished()) {
                        return Outcome.done();
                    }
                    if (!last) {
                        return Outcome.deferred("next batch", now);
                    }
                    replay.status = ReplayStatus.COMPLETED;
                    replay.finishedAt = now;
                    replay.note = refusals(replay);
                    LOG.infof("replay %s of %s completed: %d events published, %d masked and %d older than the dedupe horizon refused", id,
                            replay.scope, replay.published, replay.refusedMasked, replay.refusedOld);
                    return Outcome.done();
                })));
    }
}
