package dev.umbra.platform.inbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.umbra.events.EventHeaders;
import dev.umbra.testing.ExpectedLog;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

@ExpectedLog(category = "dev.umbra.platform.inbox.IncomingEvents", message = "has no ts_ms")
class IncomingEventsTest {

    private static final Instant COMMITTED = Instant.parse("2026-11-26T01:00:00.123Z");
    private static final Instant READ_BY_DEBEZIUM = COMMITTED.plusSeconds(30);

    @Test
    void anEventWasRecordedWhenItsTransactionCommittedNotWhenDebeziumReadIt() {
        String source = "{\"version\":\"3.7.0.Final\",\"connector\":\"postgresql\",\"name\":\"guild\",\"ts_ms\":"
                + COMMITTED.toEpochMilli() + ",\"snapshot\":\"false\",\"db\":\"guild\",\"sequence\":\"[\\\"24023928\\\",\\\"24023928\\\"]\","
                + "\"schema\":\"public\",\"table\":\"outbox_event\",\"txId\":771,\"lsn\":24023928,\"xmin\":null}";

        assertEquals(COMMITTED, IncomingEvents.decode(record(source)).recordedAt());
        assertEquals(COMMITTED, IncomingEvents.decode(record(source)).committedAt());
    }

    @Test
    void aRecordWithoutASourceBlockWasRecordedAtItsTimestamp() {
        // what a replay or an operator's re-produced record without the header carries
        assertEquals(READ_BY_DEBEZIUM, IncomingEvents.decode(record(null)).recordedAt());
        assertNull(IncomingEvents.decode(record(null)).committedAt(), "a timestamp that may be the re-produce's is no commit time");
    }

    @Test
    void aReplaysCopyWasCommittedWhenItsOriginalWasNotWhenItWasSent() {
        // audit's replay sends a copy with its original's commit time in a header: orders by commit time (licensing's stream
        // marks) hold for a rebuild from a replay as for the live events; the copy's timestamp is when it was sent
        ConsumerRecord<String, byte[]> copy = record(null);
        header((RecordHeaders) copy.headers(), EventHeaders.REPLAY, UUID.randomUUID().toString());
        header((RecordHeaders) copy.headers(), EventHeaders.COMMITTED_AT, COMMITTED.toString());
        assertEquals(COMMITTED, IncomingEvents.decode(copy).committedAt());
        assertEquals(COMMITTED, IncomingEvents.decode(copy).recordedAt());
    }

    @Test
    void aCopyAnEarlierReplaySentWithoutTheHeaderWasCommittedAtItsTimestamp() {
        // audit stamped its copies with their originals' commit before it sent the header: some may still be in a topic or a .dlq
        ConsumerRecord<String, byte[]> copy = record(null);
        header((RecordHeaders) copy.headers(), EventHeaders.REPLAY, UUID.randomUUID().toString());
        assertEquals(READ_BY_DEBEZIUM, IncomingEvents.decode(copy).committedAt());
    }

    @Test
    void aSourceBlockThatCannotBeReadCostsTheCommitTimeNotTheEvent() {
        // a worker with the JSON header converter wraps the block in schema and payload; a header edited by hand may be anything
        for (String unreadable : List.of("not json", "{\"ts_ms\":\"yesterday\"}", "{\"schema\":{},\"payload\":{\"ts_ms\":1}}")) {
            assertEquals(READ_BY_DEBEZIUM, IncomingEvents.decode(record(unreadable)).recordedAt(), unreadable);
            assertNull(IncomingEvents.decode(record(unreadable)).committedAt(), unreadable);
        }
    }

    private static ConsumerRecord<String, byte[]> record(String source) {
        RecordHeaders headers = new RecordHeaders();
        header(headers, EventHeaders.EVENT_ID, UUID.randomUUID().toString());
        header(headers, EventHeaders.EVENT_TYPE, "BotInstalled");
        header(headers, EventHeaders.AGGREGATE_TYPE, "guild");
        header(headers, EventHeaders.OCCURRED_AT, COMMITTED.minusMillis(5).toString());
        header(headers, EventHeaders.SCHEMA_VERSION, "1");
        if (source != null) {
            header(headers, EventHeaders.SOURCE, source);
        }
        return new ConsumerRecord<>("umbra.guild", 0, 42L, READ_BY_DEBEZIUM.toEpochMilli(), TimestampType.CREATE_TIME, 0, 0,
                "123456789012345678", "{\"guildId\":\"123456789012345678\"}".getBytes(StandardCharsets.UTF_8), headers, Optional.empty());
    }

    private static void header(RecordHeaders headers, String name, String value) {
        headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }
}
