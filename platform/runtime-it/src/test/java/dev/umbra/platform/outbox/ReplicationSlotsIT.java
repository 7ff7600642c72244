package dev.umbra.platform.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.Metrics;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The outbox slot's gauges when the slot goes away: said missing, and no longer said to keep WAL. */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "inbox_test"))
class ReplicationSlotsIT {

    private static final String SLOT = "inbox_test_outbox";
    private static final Duration WAIT = Duration.ofSeconds(20);

    @InjectDevstack
    Database db;

    @Test
    void aDroppedOutboxSlotIsReportedMissingAndNoLongerAsKeepingWalUntilItIsBack() {
        // the platform migrations made it, and no connector reads this test database
        await().atMost(WAIT).until(() -> missing() == 0 && !Double.isNaN(retained()));

        db.count("select count(*) from (select pg_drop_replication_slot(?)) dropped", SLOT);
        try {
            await().atMost(WAIT).until(() -> missing() == 1 && Double.isNaN(retained()));
        } finally {
            db.count("select count(*) from (select pg_create_logical_replication_slot(?, 'pgoutput')) made", SLOT);
        }

        await().atMost(WAIT).until(() -> missing() == 0 && !Double.isNaN(retained()));
    }

    private static double missing() {
        return Metrics.scrape().sum("umbra_replication_slot_missing");
    }

    private static double retained() {
        return Metrics.scrape().sum("umbra_replication_slot_retained_wal_bytes", "slot=\"" + SLOT + "\"");
    }
}
