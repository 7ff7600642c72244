package dev.umbra.platform.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.events.guild.BotInstalled;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.testing.DevstackResource;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.hibernate.reactive.mutiny.Mutiny;
import org.junit.jupiter.api.Test;

/**
 * Every write runs the outbox's statements and every consumed batch the inbox's claim. Through Hibernate
 * Reactive's native queries each such select missed the plan cache and added an entry to it (52 misses
 * for 25 writes here before {@link NativeSelects}); now none reaches the cache.
 */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "inbox_test"))
class QueryPlanReuseIT {

    private static final int WRITES = 25;

    @Inject
    OutboxWriter outbox;

    @Inject
    Mutiny.SessionFactory sessions;

    @Test
    void outboxWritesAndNativeSelectsAddNothingToThePlanCache() throws Throwable {
        writeAndSelect();
        long missesBefore = sessions.getStatistics().getQueryPlanCacheMissCount();

        for (int i = 0; i < WRITES; i++) {
            writeAndSelect();
        }

        assertThat(sessions.getStatistics().getQueryPlanCacheMissCount()).isEqualTo(missesBefore);
    }

    @Test
    void columnsAreReadAsTheTypesAskedAndInstantsAreBound() throws Throwable {
        UUID id = UUID.randomUUID();
        Instant at = Instant.parse("2026-11-23T10:15:30.123456Z");
        List<Object[]> rows = VertxContextSupport.subscribeAndAwait(() -> Panache.withSession(() -> Panache.getSession()
                .chain(session -> NativeSelects.select(session, "select $1::uuid, 42::bigint, 7, 'text', $2::timestamptz, null", id, at))));

        Object[] row = rows.get(0);
        assertThat(NativeSelects.value(row[0], UUID.class)).isEqualTo(id);
        assertThat(NativeSelects.value(row[1], Long.class)).isEqualTo(42L);
        assertThat(NativeSelects.value(row[2], Integer.class)).isEqualTo(7);
        assertThat(NativeSelects.value(row[3], String.class)).isEqualTo("text");
        assertThat(NativeSelects.value(row[4], Instant.class)).isEqualTo(at);
        assertThat(NativeSelects.value(row[5], Long.class)).isNull();
    }

    private void writeAndSelect() throws Throwable {
        String guildId = String.format("9%017d", ThreadLocalRandom.current().nextLong(100_000_000_000_000_000L));
        long sequences = VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(() -> outbox
                .publish(new BotInstalled(guildId, "223456789012345678"))
                .chain(() -> Panache.getSession())
                .chain(session -> NativeSelects.select(session, "select count(*) from aggregate_sequence where aggregate_id = $1", guildId))
                .map(NativeSelects.single(Long.class))));
        assertThat(sequences).isEqualTo(1);
    }
}
