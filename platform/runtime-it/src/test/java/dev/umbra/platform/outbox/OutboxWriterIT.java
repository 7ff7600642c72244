package dev.umbra.platform.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventEnvelope;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.Snowflakes;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Several events in one statement: each aggregate's events take the next sequence numbers, in their order. */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "inbox_test"))
class OutboxWriterIT {

    @InjectDevstack
    Database db;

    @Inject
    OutboxWriter outbox;

    @Test
    void eventsOfSeveralAggregatesInOneStatementTakeTheirAggregatesNextSequencesInOrder() throws Throwable {
        String a = Snowflakes.random();
        String b = Snowflakes.random();
        String c = Snowflakes.random();
        VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(() -> outbox.publish(new BotInstalled(a, null))));
        Instant at = Instant.parse("2026-11-26T08:00:00Z");
        List<OutboxWriter.Publication> mixed = List.of(kick(a, at), kick(b, at), kick(a, at.plusSeconds(1)), kick(c, at),
                kick(b, at.plusSeconds(1)), kick(a, at.plusSeconds(2)));

        List<EventEnvelope> written;
        // what logical decoding reads, as Debezium would: the rows in the order they were written
        db.execute("select 1 from pg_create_logical_replication_slot('outbox_writer_it', 'test_decoding')");
        List<String> decoded;
        try {
            written = VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(() -> outbox.publishInOrder(mixed)));
            decoded = db.text("select string_agg(data, E'\\n' order by lsn) from pg_logical_slot_get_changes('outbox_writer_it', null, null)")
                    .lines().filter(line -> line.startsWith("table public.outbox_event: INSERT:")).toList();
        } finally {
            db.execute("select pg_drop_replication_slot('outbox_writer_it')");
        }

        assertThat(written).extracting(EventEnvelope::aggregateId).containsExactly(a, b, a, c, b, a);
        assertThat(written).extracting(EventEnvelope::sequence).containsExactly(2L, 1L, 3L, 1L, 2L, 4L);
        assertThat(written).extracting(EventEnvelope::occurredAt)
                .containsExactly(at, at, at.plusSeconds(1), at, at.plusSeconds(1), at.plusSeconds(2));
        assertThat(written).extracting(EventEnvelope::traceContext).containsOnly("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        assertThat(decoded).hasSize(mixed.size());
        for (int i = 0; i < mixed.size(); i++) {
            assertThat(decoded.get(i)).as("row %d of the write-ahead log", i)
                    .contains("id[uuid]:'" + written.get(i).eventId() + "'")
                    .contains("aggregateid[character varying]:'" + written.get(i).aggregateId() + "'")
                    .contains("sequence[bigint]:" + written.get(i).sequence());
        }
        assertThat(db.count("select last_sequence from aggregate_sequence where aggregate_id = ?", a)).isEqualTo(4);
        assertThat(db.count("select count(*) from outbox_event where aggregateid in (?, ?, ?)", a, b, c))
                .as("each row leaves with its insert").isZero();
    }

    @Test
    void concurrentWritersOfOneAggregateGetEveryNumberOnceAndEachKeepsItsEventsTogetherInOrder() throws Exception {
        String guild = Snowflakes.random();
        int writers = 8;
        int eventsEach = 5;
        List<DomainEvent> kicks = IntStream.range(0, eventsEach).mapToObj(i -> (DomainEvent) new BotKicked(guild)).toList();

        // each writer on its own thread, context and transaction
        ExecutorService threads = Executors.newFixedThreadPool(writers);
        List<Future<List<EventEnvelope>>> writing = new ArrayList<>();
        try {
            for (int writer = 0; writer < writers; writer++) {
                writing.add(threads.submit(() -> publishedInATransaction(kicks)));
            }
        } finally {
            threads.shutdown();
        }

        List<Long> all = new ArrayList<>();
        for (Future<List<EventEnvelope>> writer : writing) {
            List<EventEnvelope> one = writer.get(30, TimeUnit.SECONDS);
            List<Long> sequences = one.stream().map(EventEnvelope::sequence).toList();
            assertThat(sequences).as("one writer's events").isEqualTo(consecutive(sequences.get(0), eventsEach));
            all.addAll(sequences);
        }
        assertThat(all).containsExactlyInAnyOrderElementsOf(consecutive(1, writers * eventsEach));
    }

    private List<EventEnvelope> publishedInATransaction(List<DomainEvent> events) throws Exception {
        try {
            return VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(() -> outbox.publishAll(events)));
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable other) {
            throw new IllegalStateException(other);
        }
    }

    private static List<Long> consecutive(long first, int count) {
        return java.util.stream.LongStream.range(first, first + count).boxed().toList();
    }

    private static OutboxWriter.Publication kick(String guildId, Instant at) {
        return new OutboxWriter.Publication(new BotKicked(guildId), at, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    }
}
