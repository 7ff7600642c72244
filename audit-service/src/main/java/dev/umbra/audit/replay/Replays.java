package dev.umbra.audit.replay;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.storage.StorageFaults;
import dev.umbra.platform.web.ProblemException;
import dev.umbra.platform.workqueue.WorkQueue;
import dev.umbra.platform.workqueue.WorkQueues;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Asks for replays, shows them and cancels them. A replay is one item of the {@value #QUEUE} work
 * queue, keyed by its id ({@link ReplayWorker} publishes it a batch at a time).
 */
@ApplicationScoped
public class Replays {

    static final String QUEUE = "audit-replay";

    private final StoredEvents events;
    private final WorkQueue queue;
    private final Clock clock;

    public Replays(StoredEvents events, WorkQueues queues, Clock clock) {
        this.events = events;
        this.queue = queues.queue(QUEUE);
        this.clock = clock;
    }

    /** A new replay of the events in {@code scope}: 409 while one of the same scope is queued or running, 422 when no event is in it. */
    public Uni<ReplayView> request(ReplayScope scope) {
        return events.count(scope).chain(count -> {
            if (count.total() == 0) {
                return Uni.createFrom().failure(ProblemException.unprocessable("no stored event is in this scope: nothing to replay"));
            }
            return store(scope, count);
        }).onFailure(StorageFaults::lostRace)
                .transform(e -> ProblemException.conflict("a replay of this scope was asked for at the same moment and is running"));
    }

    @WithTransaction
    @DatabaseGuard
    Uni<ReplayView> store(ReplayScope scope, StoredEvents.Count count) {
        return active(scope).chain(running -> {
            if (running != null) {
                return Uni.createFrom().failure(ProblemException.conflict("replay " + running.id + " of this scope is " + running.status
                        + ": cancel it or wait for it to finish"));
            }
            Replay replay = new Replay();
            replay.id = UUID.randomUUID();
            replay.aggregateType = scope.aggregateType();
            replay.aggregateId = scope.aggregateId();
            replay.occurredFrom = scope.from();
            replay.occurredTo = scope.to();
            replay.scope = scope.key();
            replay.status = ReplayStatus.QUEUED;
            replay.total = count.total();
            replay.requestedAt = clock.instant();
            return replay.persistAndFlush()
                    .chain(() -> queue.enqueue(replay.id.toString(), JsonNodeFactory.instance.objectNode(), replay.requestedAt))
                    .replaceWith(() -> ReplayView.of(replay));
        });
    }

    @WithTransaction
    @DatabaseGuard
    public Uni<ReplayView> get(UUID id) {
        return Replay.<Replay>findById(id).map(replay -> {
            if (replay == null) {
                throw ProblemException.notFound("no replay " + id);
            }
            return ReplayView.of(replay);
        });
    }

    @WithTransaction
    @DatabaseGuard
    public Uni<List<ReplayView>> recent(int limit) {
        return Replay.<Replay>find("order by requestedAt desc, id").page(0, limit).list()
                .map(replays -> replays.stream().map(ReplayView::of).toList());
    }

    /** Stops a queued or running replay after the batch in flight (what was published stays published); 409 once finished. */
    @WithTransaction
    @DatabaseGuard
    public Uni<ReplayView> cancel(UUID id) {
        return Replay.lockById(id).map(replay -> {
            if (replay == null) {
                throw ProblemException.notFound("no replay " + id);
            }
            if (replay.status.finished()) {
                throw ProblemException.conflict("replay " + id + " is " + replay.status + " already");
            }
            Instant now = clock.instant();
            replay.status = ReplayStatus.CANCELED;
            replay.finishedAt = now;
            replay.note = "canceled by an operator";
            return ReplayView.of(replay);
        });
    }

    private static Uni<Replay> active(ReplayScope scope) {
        return Replay.find("scope = ?1 and status in (?2, ?3)", scope.key(), ReplayStatus.QUEUED, ReplayStatus.RUNNING).firstResult();
    }
}
