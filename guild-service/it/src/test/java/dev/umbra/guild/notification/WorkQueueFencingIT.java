package dev.umbra.guild.notification;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.umbra.platform.workqueue.Outcome;
import dev.umbra.platform.workqueue.WorkItem;
import dev.umbra.platform.workqueue.WorkQueue;
import dev.umbra.platform.workqueue.WorkQueues;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The platform work queue's lease and fencing token, on a queue of its own in the guild database. */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "guild"), @ResourceArg(name = "outbox", value = "guild")})
class WorkQueueFencingIT {

    @InjectDevstack
    Database db;
    private static final String QUEUE = "fencing-probe";

    @Inject
    WorkQueues queues;

    @Test
    void aWorkerWhoseLeaseWasTakenOverCannotFinishTheItem() throws Throwable {
        WorkQueue queue = queues.queue(QUEUE);
        String key = UUID.randomUUID().toString();
        VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(
                () -> queue.enqueue(key, JsonNodeFactory.instance.objectNode().put("n", 1), Instant.now())));

        WorkItem slow = claimOnly(queue, key);
        assertThat(claimOnly(queue, key)).as("leased: nobody else gets it").isNull();

        // The slow worker's lease runs out; another worker takes the item over with a new token.
        db.text("update work_item set lease_until = now() - interval '1 second' where queue = ? and item_key = ? returning item_key", QUEUE, key);
        WorkItem takenOver = claimOnly(queue, key);
        assertThat(takenOver.leaseToken()).isNotEqualTo(slow.leaseToken());

        assertThat(VertxContextSupport.subscribeAndAwait(() -> queue.record(slow, Outcome.done()))).isFalse();
        assertThat(VertxContextSupport.subscribeAndAwait(() -> queue.record(slow, Outcome.poison("late")))).isFalse();
        assertThat(VertxContextSupport.subscribeAndAwait(() -> queue.status(key))).isEqualTo("leased");

        assertThat(VertxContextSupport.subscribeAndAwait(() -> queue.record(takenOver, Outcome.done()))).isTrue();
        assertThat(VertxContextSupport.subscribeAndAwait(() -> queue.status(key))).isEqualTo("done");
        assertThat(db.count("select attempts from work_item where queue = ? and item_key = ?", QUEUE, key)).isOne();
        assertThat(VertxContextSupport.subscribeAndAwait(() -> queue.record(takenOver, Outcome.done())))
                .as("a token is good for one outcome").isFalse();
    }

    @Test
    void workDoneUnderTheLeaseRenewsItAndAWorkerThatStopsLosesIt() throws Throwable {
        WorkQueue queue = queues.queue(QUEUE);
        String key = UUID.randomUUID().toString();
        VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(
                () -> queue.enqueue(key, JsonNodeFactory.instance.objectNode().put("n", 2), Instant.now())));
        WorkItem working = claimOnly(queue, key);

        // almost run out: a step done under the lease renews it for a whole lease from now
        db.text("update work_item set lease_until = now() + interval '1 second' where queue = ? and item_key = ? returning item_key", QUEUE, key);
        assertThat(VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(() -> queue.holdsLease(working)))).isTrue();
        assertThat(db.count("select extract(epoch from lease_until - now())::bigint from work_item where queue = ? and item_key = ?", QUEUE, key))
                .isGreaterThan(queue.settings().lease().toSeconds() - 5);
        assertThat(claimOnly(queue, key)).as("renewed: nobody else gets it").isNull();

        // the worker stops working (a crash): once its lease has run out, another worker takes the item over
        db.text("update work_item set lease_until = now() - interval '1 second' where queue = ? and item_key = ? returning item_key", QUEUE, key);
        WorkItem takenOver = claimOnly(queue, key);
        assertThat(takenOver).isNotNull();
        assertThat(VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(() -> queue.holdsLease(working))))
                .as("the old worker's renewal fails: its token is void").isFalse();
        assertThat(VertxContextSupport.subscribeAndAwait(() -> queue.record(takenOver, Outcome.done()))).isTrue();
    }

    /** Claims due items of the probe queue and returns the one with {@code key}, or null if it was not among them. */
    private static WorkItem claimOnly(WorkQueue queue, String key) throws Throwable {
        List<WorkItem> claimed = VertxContextSupport.subscribeAndAwait(queue::claim);
        return claimed.stream().filter(item -> item.key().equals(key)).findFirst().orElse(null);
    }
}
