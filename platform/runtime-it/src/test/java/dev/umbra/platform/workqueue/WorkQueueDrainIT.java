package dev.umbra.platform.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.LogLines;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.smallrye.mutiny.Multi;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A poll's drain: rounds follow each other while they claim a whole batch (5 here) and finish it, each
 * trying at most the queue's concurrency (3) at once; a round that puts an item back ends it.
 */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.platform.workqueue.WorkQueue", message = "item deadly is (dead|not tried again)")
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "inbox_test"))
@ExpectedLog(category = LogLines.POSTGRESQL, level = "ERROR", message = "^too many connections for now$")
class WorkQueueDrainIT {

    @InjectDevstack
    Database db;

    @Inject
    WorkQueues queues;

    @Inject
    CountingWork work;

    @Inject
    Pool pool;

    @Inject
    WorkQueueConfig config;

    @Inject
    MeterRegistry registry;

    @BeforeEach
    void emptyQueue() {
        db.execute("delete from work_item where queue = ?", CountingWork.QUEUE);
        work.forget();
    }

    @Test
    void aDrainWorksOffTheWholeBacklogInRoundsTryingAtMostTheQueuesConcurrencyAtOnce() throws Throwable {
        List<String> keys = keys("item", 12);
        enqueue(keys, Instant.now());

        assertThat(drain()).isEqualTo(12);

        assertThat(work.tried()).containsExactlyInAnyOrderElementsOf(keys);
        assertThat(work.mostAtOnce()).isEqualTo(3);
        assertThat(db.count("select count(*) from work_item where queue = ? and status = 'done'", CountingWork.QUEUE)).isEqualTo(12);
    }

    @Test
    void aRoundThatPutsAnItemBackEndsTheDrainAndTheRestWaitsForTheNextPoll() throws Throwable {
        // claimed longest due first: the refused item is in the first round
        enqueue(List.of("refused-1"), Instant.now().minusSeconds(10));
        enqueue(keys("item", 11), Instant.now());

        assertThat(drain()).isEqualTo(5);

        assertThat(work.tried()).hasSize(5).contains("refused-1");
        assertThat(db.count("select count(*) from work_item where queue = ? and status = 'done'", CountingWork.QUEUE)).isEqualTo(4);
        assertThat(db.count("select count(*) from work_item where queue = ? and status = 'pending' and attempts = 0", CountingWork.QUEUE))
                .isEqualTo(7);
        assertThat(db.count("select count(*) from work_item where queue = ? and item_key = 'refused-1' and attempts = 1 and due_at > now()",
                CountingWork.QUEUE)).isEqualTo(1);
    }

    @Test
    void anItemWhoseTriesLoseRacesMoreOftenThanItsAttemptsIsTriedAgainNeverDead() throws Throwable {
        enqueue(List.of("raced-1"), Instant.now());
        for (int i = 0; i < config.of(CountingWork.QUEUE).maxAttempts() + 2; i++) {
            db.execute("update work_item set due_at = now() where queue = ? and item_key = 'raced-1'", CountingWork.QUEUE);
            assertThat(runOnce()).isOne();
        }
        assertThat(db.text("select status || ':' || failures from work_item where queue = ? and item_key = 'raced-1'", CountingWork.QUEUE))
                .isEqualTo("pending:0");
    }

    @Test
    void anItemWhoseTurnInTheRoundComesWithLessThanHalfItsLeaseLeftGoesBackInLineUntried() throws Throwable {
        enqueue(keys("slow", 5), Instant.now());

        // five claimed with one lease each, three tried at once: the last two would start after half the lease
        assertThat(runOnce()).isEqualTo(5);
        assertThat(work.tried()).hasSize(3);
        assertThat(db.count("select count(*) from work_item where queue = ? and status = 'pending' and attempts = 0 and lease_token is null",
                CountingWork.QUEUE)).isEqualTo(2);

        assertThat(runOnce()).isEqualTo(2);
        assertThat(work.tried()).containsExactlyInAnyOrderElementsOf(keys("slow", 5));
        assertThat(db.count("select count(*) from work_item where queue = ? and status = 'done'", CountingWork.QUEUE)).isEqualTo(5);
    }

    @Test
    void aReplicaWhoseClockRunsAheadByMoreThanALeaseTakesOverNoItemStillLeased() throws Throwable {
        enqueue(List.of("held"), Instant.now());
        WorkQueue queue = queues.queue(CountingWork.QUEUE);
        Duration lease = queue.settings().lease();
        Clock ahead = Clock.offset(Clock.systemUTC(), lease.plusMinutes(5));
        WorkQueue onAnotherReplica = new WorkQueues(pool, ahead, config, registry).queue(CountingWork.QUEUE);

        List<WorkItem> claimed = VertxContextSupport.subscribeAndAwait(() -> onAnotherReplica.claim());
        assertThat(claimed).extracting(WorkItem::key).containsExactly("held");
        // the lease is the database's: a whole lease from its now(), whatever the claiming replica's clock says
        assertThat(db.count("select round(extract(epoch from lease_until - now())) from work_item where queue = ? and item_key = 'held'",
                CountingWork.QUEUE)).isBetween(lease.toSeconds() - 5, lease.toSeconds());

        db.execute("update work_item set status = 'pending', lease_until = null, lease_token = null where queue = ?", CountingWork.QUEUE);
        assertThat(VertxContextSupport.subscribeAndAwait(() -> queue.claim())).hasSize(1);
        assertThat(VertxContextSupport.subscribeAndAwait(() -> onAnotherReplica.claim())).as("still leased by the database's clock").isEmpty();

        db.execute("update work_item set lease_until = now() - interval '1 second' where queue = ?", CountingWork.QUEUE);
        assertThat(VertxContextSupport.subscribeAndAwait(() -> onAnotherReplica.claim())).extracting(WorkItem::key).containsExactly("held");
    }

    @Test
    void aFailureAfterALongOutageIsNotTakenForTheLastAttempt() throws Throwable {
        enqueue(List.of("refused-after-outage"), Instant.now());
        // seven rounds of an outage behind it: tries, none of them a failure of its own
        db.execute("update work_item set attempts = 7 where queue = ? and item_key = 'refused-after-outage'", CountingWork.QUEUE);

        assertThat(runOnce()).isEqualTo(1);

        assertThat(db.text("select status || ':' || attempts from work_item where queue = ? and item_key = 'refused-after-outage'",
                CountingWork.QUEUE)).isEqualTo("pending:8");
        assertThat(db.count("select failures from work_item where queue = ? and item_key = 'refused-after-outage'", CountingWork.QUEUE))
                .isOne();
    }

    @Test
    void anItemPutBackUntriedKeepsItsCountOfAbandonedClaims() throws Throwable {
        enqueue(keys("slow", 4), Instant.now());
        enqueue(List.of("killer"), Instant.now().plusMillis(1));
        // it has killed two workers already: last in the round's line, it goes back untried, which must not wipe that
        db.execute("update work_item set abandoned_claims = 2 where queue = ? and item_key = 'killer'", CountingWork.QUEUE);

        assertThat(runOnce()).isEqualTo(5);

        assertThat(work.tried()).doesNotContain("killer");
        assertThat(db.text("select status || ':' || attempts from work_item where queue = ? and item_key = 'killer'", CountingWork.QUEUE))
                .isEqualTo("pending:0");
        assertThat(abandonedClaims("killer")).isEqualTo(2);
    }

    @Test
    void twoWorkersDrainingTheSameBacklogAtOnceTryEachItemOnce() throws Throwable {
        List<String> keys = keys("item", 40);
        enqueue(keys, Instant.now());

        CompletableFuture<Integer> one = CompletableFuture.supplyAsync(this::drainUnchecked);
        CompletableFuture<Integer> other = CompletableFuture.supplyAsync(this::drainUnchecked);

        assertThat(one.get() + other.get()).isEqualTo(40);
        assertThat(work.tried()).containsExactlyInAnyOrderElementsOf(keys);
        assertThat(db.count("select count(*) from work_item where queue = ? and status = 'done'", CountingWork.QUEUE)).isEqualTo(40);
    }

    @Test
    void anItemWhoseWorkerDiesWhileTryingItIsClaimedAgainAndHandedToItsHandlerOnceItHasKilledTooMany() throws Throwable {
        WorkQueue queue = queues.queue(CountingWork.QUEUE);
        enqueue(List.of("deadly"), Instant.now());
        int abandonable = queue.settings().maxAbandonedClaims();

        // each worker claims the item, begins its try and dies: the next claim comes once the lease has run out
        for (int claim = 0; claim <= abandonable; claim++) {
            assertThat(VertxContextSupport.subscribeAndAwait(queue::claim)).extracting(WorkItem::key).containsExactly("deadly");
            dieWhileTrying("deadly");
        }

        assertThat(runOnce()).isEqualTo(1);
        assertThat(work.tried()).isEmpty();
        assertThat(db.text("select status || ':' || attempts || ':' || last_error from work_item where queue = ? and item_key = 'deadly'",
                CountingWork.QUEUE)).startsWith("dead:0:poison: its lease ran out " + (abandonable + 1) + " times in a row");
    }

    @Test
    void itemsOfABatchStillWaitingForTheirTurnWhenTheirWorkerDiesAreNotCountedAgainstThem() throws Throwable {
        WorkQueue queue = queues.queue(CountingWork.QUEUE);
        enqueue(List.of("waiting-1", "waiting-2"), Instant.now());
        for (int claim = 0; claim <= queue.settings().maxAbandonedClaims() + 1; claim++) {
            assertThat(VertxContextSupport.subscribeAndAwait(queue::claim)).hasSize(2);
            db.execute("update work_item set lease_until = now() - interval '1 second' where queue = ?", CountingWork.QUEUE);
        }

        assertThat(runOnce()).isEqualTo(2);
        assertThat(work.tried()).containsExactlyInAnyOrder("waiting-1", "waiting-2");
        assertThat(db.count("select count(*) from work_item where queue = ? and status = 'done'", CountingWork.QUEUE)).isEqualTo(2);
    }

    @Test
    void progressOrAnOutcomeEndsARunOfAbandonedClaimsAndARescheduledItemStartsAfresh() throws Throwable {
        WorkQueue queue = queues.queue(CountingWork.QUEUE);
        enqueue(List.of("refused-then-abandoned"), Instant.now());
        for (int claim = 0; claim < 3; claim++) {
            VertxContextSupport.subscribeAndAwait(queue::claim);
            dieWhileTrying("refused-then-abandoned");
        }
        WorkItem claimed = VertxContextSupport.subscribeAndAwait(queue::claim).get(0);
        assertThat(claimed.abandonedClaims()).isEqualTo(3);
        // a renewal alone is no progress: a try that always dies after renewing its lease is still counted
        assertThat(VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(() -> queue.holdsLease(claimed)))).isTrue();
        assertThat(abandonedClaims("refused-then-abandoned")).isEqualTo(3);
        // a step of a long job saved as done in its lease
        assertThat(VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(() -> queue.progressed(claimed)))).isTrue();
        assertThat(abandonedClaims("refused-then-abandoned")).isZero();

        dieWhileTrying("refused-then-abandoned");
        assertThat(runOnce()).isEqualTo(1);
        assertThat(work.tried()).containsExactly("refused-then-abandoned");
        assertThat(abandonedClaims("refused-then-abandoned")).as("a failure recorded").isZero();

        db.execute("update work_item set due_at = now() - interval '1 second' where queue = ? and item_key = 'refused-then-abandoned'",
                CountingWork.QUEUE);
        VertxContextSupport.subscribeAndAwait(queue::claim);
        dieWhileTrying("refused-then-abandoned");
        VertxContextSupport.subscribeAndAwait(queue::claim);
        assertThat(abandonedClaims("refused-then-abandoned")).isEqualTo(1);
        VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(
                () -> queue.schedule("refused-then-abandoned", JsonNodeFactory.instance.objectNode(), Instant.now())));
        assertThat(abandonedClaims("refused-then-abandoned")).isZero();
    }

    @Test
    void aTryMarksItsItemAsBegunBeforeTheHandlerRuns() throws Throwable {
        WorkQueue queue = queues.queue(CountingWork.QUEUE);
        enqueue(List.of("slow-begun"), Instant.now());

        CompletableFuture<Integer> round = CompletableFuture.supplyAsync(() -> {
            try {
                return runOnce();
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        });
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(2)).until(() -> "true".equals(
                db.text("select try_started::text from work_item where queue = ? and item_key = 'slow-begun'", CountingWork.QUEUE)));

        assertThat(round.get()).isEqualTo(1);
        assertThat(db.text("select status || ':' || try_started from work_item where queue = ? and item_key = 'slow-begun'",
                CountingWork.QUEUE)).isEqualTo("done:false");
    }

    /** As a worker that began the item's try and died: the next claim may take it once its lease has run out. */
    @Test
    void anOutcomeTheDatabaseRefusesForAMomentIsRecordedOnceItTakesItInsteadOfLeavingTheItemAbandoned() throws Throwable {
        enqueue(List.of("busy-record"), Instant.now());
        // the first four writes of its outcome refused as by a server out of connections (53300), for about a second;
        // a sequence, not a table, counts them: it is not rolled back with the statement that fails
        db.execute("create sequence busy_records");
        db.execute("""
                create function refuse_busy_record() returns trigger language plpgsql as $$
                begin
                    if new.item_key = 'busy-record' and old.status = 'leased' and new.lease_token is null and nextval('busy_records') <= 4 then
                        raise exception 'too many connections for now' using errcode = '53300';
                    end if;
                    return new;
                end $$""");
        db.execute("create trigger refuse_busy_record before update on work_item for each row execute function refuse_busy_record()");
        try {
            assertThat(runOnce()).isEqualTo(1);
        } finally {
            db.execute("drop trigger refuse_busy_record on work_item");
            db.execute("drop function refuse_busy_record()");
            db.execute("drop sequence busy_records");
        }

        assertThat(db.text("select status || ':' || attempts || ':' || try_started from work_item where queue = ? and item_key = 'busy-record'",
                CountingWork.QUEUE)).isEqualTo("done:1:false");
        assertThat(work.tried()).containsExactly("busy-record");
    }

    private void dieWhileTrying(String key) {
        db.execute("update work_item set try_started = true, lease_until = now() - interval '1 second' where queue = ? and item_key = ?",
                CountingWork.QUEUE, key);
    }

    private long abandonedClaims(String key) {
        return db.count("select abandoned_claims from work_item where queue = ? and item_key = ?", CountingWork.QUEUE, key);
    }

    private int drain() throws Throwable {
        WorkQueue queue = queues.queue(CountingWork.QUEUE);
        return VertxContextSupport.subscribeAndAwait(() -> queue.drain(work, () -> false));
    }

    private int runOnce() throws Throwable {
        WorkQueue queue = queues.queue(CountingWork.QUEUE);
        return VertxContextSupport.subscribeAndAwait(() -> queue.runOnce(work));
    }

    private int drainUnchecked() {
        try {
            return drain();
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    private void enqueue(List<String> keys, Instant dueAt) throws Throwable {
        WorkQueue queue = queues.queue(CountingWork.QUEUE);
        VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(() -> Multi.createFrom().iterable(keys)
                .onItem().transformToUniAndConcatenate(key -> queue.enqueue(key, JsonNodeFactory.instance.objectNode(), dueAt))
                .collect().last()));
    }

    private static List<String> keys(String prefix, int count) {
        return IntStream.range(0, count).mapToObj(i -> prefix + "-" + i).toList();
    }
}
