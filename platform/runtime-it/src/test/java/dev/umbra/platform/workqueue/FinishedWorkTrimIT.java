package dev.umbra.platform.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.platform.inbox.ProcessedEventTrimmer;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The work queues' done items are deleted once they finished before the dedupe horizon (30 days); nothing else is, nor
 * the done items of a queue that keeps them.
 */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "inbox_test"))
class FinishedWorkTrimIT {

    private static final String QUEUE = "trim-probe";
    /** A queue that keeps its done items (application.properties). */
    private static final String KEEPING = "trim-kept-probe";

    @InjectDevstack
    Database db;

    @Inject
    ProcessedEventTrimmer trimmer;

    @Test
    void doneItemsFinishedBeforeTheHorizonGoOnceWhileTwoReplicasTrimAtOnceAndNoOtherItemGoes() throws Throwable {
        db.execute("delete from work_item where queue in (?, ?)", QUEUE, KEEPING);
        List<String> old = item(QUEUE, "old-done", 7, "done", "now() - interval '40 days'");
        List<String> keptByItsQueue = item(KEEPING, "old-done", 3, "done", "now() - interval '40 days'");
        List<String> kept = new ArrayList<>();
        kept.addAll(item(QUEUE, "recent-done", 3, "done", "now() - interval '1 day'"));
        kept.addAll(item(QUEUE, "old-dead", 2, "dead", "now() - interval '40 days'"));
        kept.addAll(item(QUEUE, "old-pending", 2, "pending", "null"));

        // two replicas' runs at once (the test profile deletes 2 a statement): each old item goes once, no run fails
        List<Long> trimmed = VertxContextSupport.subscribeAndAwait(
                () -> Uni.join().all(trimmer.trimFinishedWork(), trimmer.trimFinishedWork()).andFailFast());

        assertThat(db.rows("select item_key from work_item where queue = ?", QUEUE)).map(row -> row.get(0))
                .containsExactlyInAnyOrderElementsOf(kept);
        assertThat(db.rows("select item_key from work_item where queue = ?", KEEPING)).map(row -> row.get(0))
                .containsExactlyInAnyOrderElementsOf(keptByItsQueue);
        assertThat(trimmed.get(0) + trimmed.get(1)).isGreaterThanOrEqualTo(old.size());
    }

    private List<String> item(String queue, String prefix, int count, String status, String finishedAt) {
        List<String> keys = IntStream.range(0, count).mapToObj(i -> prefix + "-" + i).toList();
        for (String key : keys) {
            db.execute("insert into work_item (queue, item_key, payload, status, due_at, ready_at, created_at, finished_at) "
                    + "values (?, ?, '{}', ?, now() - interval '41 days', now() - interval '41 days', now() - interval '41 days', "
                    + finishedAt + ")", queue, key, status);
        }
        return keys;
    }
}
