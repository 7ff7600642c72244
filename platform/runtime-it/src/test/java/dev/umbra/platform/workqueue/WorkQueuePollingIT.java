package dev.umbra.platform.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.LogGuard;
import dev.umbra.testing.LogLines;
import dev.umbra.testing.Metrics;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The poller of a queue and its gauges over time: a try that never ends, recurring work between its runs. */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.platform.workqueue.WorkQueues", message = "round under way has shown no progress")
@ExpectedLog(category = "dev.umbra.platform.workqueue.WorkQueue", message = "item hang-1 is (dead|not tried again)")
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "inbox_test"))
class WorkQueuePollingIT {

    @InjectDevstack
    Database db;

    @Inject
    WorkQueues queues;

    @Inject
    HangingWork hanging;

    @Inject
    RecurringProbe recurring;

    @Test
    void aTryThatNeverEndsStopsNeitherTheQueueNorItsGaugesAndItsItemEndsDeadOnceItHasHungTooOften() throws Throwable {
        hanging.poll(true);
        enqueue(HangingWork.QUEUE, "hang-1");
        await().atMost(Duration.ofSeconds(10)).until(() -> hanging.tried().contains("hang-1"));

        // the round that tries it never ends; the poller's next rounds still take what comes
        for (int i = 1; i <= 3; i++) {
            enqueue(HangingWork.QUEUE, "later-" + i);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> db.count(
                "select count(*) from work_item where queue = ? and item_key like 'later-%' and status = 'done'", HangingWork.QUEUE) == 3);

        // taken over once its lease ran out, hung again, then handed to its handler: dead, with the reason
        await().atMost(Duration.ofSeconds(30)).until(() -> "dead".equals(db.text(
                "select status from work_item where queue = ? and item_key = 'hang-1'", HangingWork.QUEUE)));
        assertThat(db.text("select last_error from work_item where queue = ? and item_key = 'hang-1'", HangingWork.QUEUE))
                .contains("kill or hang the worker");
        assertThat(hanging.tried()).filteredOn("hang-1"::equals).hasSize(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> backlog(HangingWork.QUEUE, "dead") == 1.0);
    }

    @Test
    void aRoundThatWaitsOnTheDatabaseAfterAQuietSpellIsNotTakenForAStalledOne() throws Exception {
        // a quiet spell longer than the lease (3 s): rounds only refresh the gauges while the handler is not ready
        Thread.sleep(3_500);
        long mark = LogLines.mark(LogGuard.TEST_LOG);
        try (AutoCloseable lock = db.holding("lock table work_item in access exclusive mode")) {
            await().atMost(Duration.ofSeconds(5)).until(() -> db.count(
                    "select count(*) from pg_locks where not granted and relation = 'work_item'::regclass") > 0);
            // ticks (one a second) come while a round waits, for less than a lease
            Thread.sleep(2_200);
        }
        assertThat(LogLines.unexpected(LogGuard.TEST_LOG, mark, List.of()))
                .noneMatch(line -> line.text().contains("shown no progress"));
    }

    @AfterEach
    void stopPolling() {
        hanging.poll(false);
    }

    @Test
    void recurringWorkBetweenItsRunsIsWaitingNotLateAndEachRunStartsItsAttemptsAnew() throws Throwable {
        WorkQueue queue = queues.queue(RecurringProbe.QUEUE);
        db.execute("delete from work_item where queue = ?", RecurringProbe.QUEUE);
        // its item first put in line two hours ago, and ten failed runs of an outage behind it
        db.execute("insert into work_item (queue, item_key, payload, due_at, ready_at, created_at, attempts) "
                + "values (?, ?, '{}'::jsonb, now(), now() - interval '2 hours', now() - interval '2 hours', 10)", RecurringProbe.QUEUE,
                RecurringWork.RUN);
        VertxContextSupport.subscribeAndAwait(queue::measure);
        assertThat(oldestReadySeconds(RecurringProbe.QUEUE)).isGreaterThanOrEqualTo(7_200);

        assertThat(VertxContextSupport.subscribeAndAwait(() -> queue.runOnce(recurring))).isOne();
        VertxContextSupport.subscribeAndAwait(queue::measure);

        assertThat(oldestReadySeconds(RecurringProbe.QUEUE)).isZero();
        assertThat(db.text("select status || ':' || attempts || ':' || failures from work_item where queue = ? and item_key = ?",
                RecurringProbe.QUEUE, RecurringWork.RUN)).isEqualTo("pending:0:0");
        assertThat(db.count("select count(*) from work_item where queue = ? and ready_at = due_at and due_at > now() + interval '59 minutes'",
                RecurringProbe.QUEUE)).isOne();
    }

    private void enqueue(String queue, String key) throws Throwable {
        VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(
                () -> queues.queue(queue).enqueue(key, JsonNodeFactory.instance.objectNode(), Instant.now())));
    }

    private static double backlog(String queue, String state) {
        return Metrics.scrape().sum("umbra_work_queue_backlog", "queue=\"" + queue + "\"", "state=\"" + state + "\"");
    }

    private static double oldestReadySeconds(String queue) {
        return Metrics.scrape().sum("umbra_work_queue_oldest_ready_seconds", "queue=\"" + queue + "\"");
    }
}
