package dev.umbra.audit.replay;

import dev.umbra.audit.replay.StoredEvents.StoredEvent;
import dev.umbra.events.EventHeaders;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;

/**
 * Publishes stored events to the topics they were read from, as Debezium's outbox router published
 * them: the aggregate id as key, the payload as value, the envelope headers (the event id first of
 * all, so every consumer's inbox knows the event). Two more: {@link EventHeaders#REPLAY} names the replay, for
 * operators reading the topic; {@link EventHeaders#COMMITTED_AT} is the time of their first recording, which the
 * inbox takes as the copy's commit time, as it takes a source block's. The record's timestamp is when it is sent,
 * so that the topic's retention keeps it as long as any record sent then.
 */
@ApplicationScoped
public class ReplayPublisher {

    private final MutinyEmitter<byte[]> records;

    public ReplayPublisher(@Channel("audit-replay") @OnOverflow(value = OnOverflow.Strategy.BUFFER, bufferSize = 1024)
            MutinyEmitter<byte[]> records) {
        this.records = records;
    }

    /** Sends the events in order and completes when Kafka acknowledged every one (acks=all, idempotent producer: order kept per partition). */
    public Uni<Void> publish(String replayId, List<StoredEvent> events, Duration timeout) {
        if (events.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        List<Uni<Void>> sends = events.stream().map(event -> records.sendMessage(message(replayId, event))).toList();
        return Uni.join().all(sends).andFailFast().replaceWithVoid().ifNoItem().after(timeout).fail();
    }

    private static Message<byte[]> message(String replayId, StoredEvent event) {
        RecordHeaders headers = new RecordHeaders();
        header(headers, EventHeaders.EVENT_ID, event.eventId().toString());
        header(headers, EventHeaders.EVENT_TYPE, event.eventType());
        header(headers, EventHeaders.AGGREGATE_TYPE, event.aggregateType());
        header(headers, EventHeaders.OCCURRED_AT, event.occurredAt().toString());
        header(headers, EventHeaders.SCHEMA_VERSION, Integer.toString(event.schemaVersion()));
        if (event.sequence() > 0) {
            header(headers, EventHeaders.SEQUENCE, Long.toString(event.sequence()));
        }
        if (event.traceContext() != null) {
            header(headers, EventHeaders.TRACE_PARENT, event.traceContext());
        }
        header(headers, EventHeaders.REPLAY, replayId);
        header(headers, EventHeaders.COMMITTED_AT, event.recordedAt().toString());
        return Message.of(event.payload().getBytes(StandardCharsets.UTF_8)).addMetadata(OutgoingKafkaRecordMetadata.<String>builder()
                .withTopic(event.topic()).withKey(event.aggregateId()).withHeaders(headers).build());
    }

    private static void header(RecordHeaders headers, String name, String value) {
        headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }
}
