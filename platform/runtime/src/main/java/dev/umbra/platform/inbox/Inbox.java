package dev.umbra.platform.inbox;

import dev.umbra.events.EventEnvelope;
import dev.umbra.events.EventHeaders;
import dev.umbra.platform.inbox.InboxMetrics.Outcome;
import dev.umbra.platform.trace.TraceContext;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.kafka.api.IncomingKafkaRecordMetadata;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

/**
 * The consuming side of every service. For each record: decode the envelope, then in ONE transaction
 * claim the event in {@code processed_event} (a duplicate claims nothing and is skipped) and apply
 * the handler, whose writes and outbox events commit together with the claim. The record is acked
 * after the commit.
 *
 * <p>A failed attempt is judged by {@link FailureKind}: a record that can never be applied goes to the
 * dead-letter topic at once; a handler failure of unknown cause is retried a few times and then
 * dead-lettered; an infrastructure fault (database down, timeout, open circuit) says nothing about the
 * record, so it is retried without limit and the record's partition waits: nothing behind it is
 * applied first, nothing is skipped. Retrying is safe because an attempt is one transaction and the
 * claim makes a retry of a committed attempt a no-op.
 *
 * <pre>{@code
 * @Incoming("guild-events")
 * Uni<Void> consume(Message<byte[]> message) {
 *     return inbox.consume("licensing", message, handlers);
 * }
 * }</pre>
 */
@ApplicationScoped
public class Inbox {

    private static final Logger LOG = Logger.getLogger(Inbox.class);
    private static final String CLAIM = """
            insert into processed_event (consumer, event_id, event_type, aggregate_type, aggregate_id, recorded_at)
            values (:consumer, :eventId, :eventType, :aggregateType, :aggregateId, :recordedAt)
            on conflict do nothing""";

    private final DeadLetters deadLetters;
    private final InboxMetrics metrics;
    private final Clock clock;
    private final InboxSettings settings;
    private final Map<String, Instant> lastWaitingWarning = new ConcurrentHashMap<>();

    public Inbox(DeadLetters deadLetters, InboxMetrics metrics, Clock clock, InboxSettings settings) {
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.clock = clock;
        this.settings = settings;
    }

    public Uni<Void> consume(String consumer, Message<byte[]> message, EventHandlers handlers) {
        IncomingKafkaRecordMetadata<?, ?> record = message.getMetadata(IncomingKafkaRecordMetadata.class)
                .orElseThrow(() -> new IllegalStateException("the inbox consumes Kafka records only"));
        String eventType = IncomingEvents.optional(record.getHeaders(), EventHeaders.EVENT_TYPE);
        Executor onThisContext = onCurrentContext();
        AtomicBoolean waiting = new AtomicBoolean();
        Uni<Outcome> applied = Uni.createFrom().deferred(() -> attempt(consumer, record, message.getPayload(), handlers))
                .runSubscriptionOn(onThisContext)
                .ifNoItem().after(settings.attemptTimeout())
                        .failWith(() -> new AttemptTimedOutException(consumer, settings.attemptTimeout()))
                .onFailure().invoke(error -> metrics.failedAttempt(consumer, eventType, FailureKind.of(error)))
                .onFailure(error -> FailureKind.of(error) == FailureKind.HANDLER)
                        .retry().withBackOff(settings.initialBackoff(), settings.maxBackoff())
                        .atMost(settings.maxAttempts() - 1L)
                .onFailure(error -> FailureKind.of(error) != FailureKind.TRANSIENT)
                        .recoverWithUni(error -> deadLetters.send(consumer, record, message.getPayload(), error)
                                .emitOn(onThisContext)
                                .replaceWith(Outcome.DEAD_LETTERED));
        return applied
                .onFailure().invoke(error -> holdBack(consumer, record, error, waiting))
                .onFailure().retry().withBackOff(settings.initialBackoff(), settings.maxBackoff()).withJitter(0.5).indefinitely()
                .eventually(() -> {
                    if (waiting.getAndSet(false)) {
                        metrics.waiting(consumer, -1);
                        LOG.infof("%s: %s-%d@%d applied after waiting out a transient fault", consumer, record.getTopic(),
                                record.getPartition(), record.getOffset());
                    }
                })
                .invoke(outcome -> metrics.outcome(consumer, eventType, outcome))
                .chain(outcome -> Uni.createFrom().completionStage(message.ack()));
    }

    /** The record waits for a transient fault to pass: counted while it waits, and said at WARN now and then per partition, not per attempt. */
    private void holdBack(String consumer, IncomingKafkaRecordMetadata<?, ?> record, Throwable error, AtomicBoolean waiting) {
        if (!waiting.getAndSet(true)) {
            metrics.waiting(consumer, 1);
        }
        String partition = consumer + "/" + record.getTopic() + "-" + record.getPartition();
        Instant now = clock.instant();
        Instant last = lastWaitingWarning.get(partition);
        if (last == null || !now.isBefore(last.plus(settings.waitingWarningInterval()))) {
            lastWaitingWarning.put(partition, now);
            LOG.warnf("%s: %s-%d@%d waits for a transient fault to pass (retrying, nothing is skipped): %s", consumer,
                    record.getTopic(), record.getPartition(), record.getOffset(), error.toString());
        }
    }

    private Uni<Outcome> attempt(String consumer, IncomingKafkaRecordMetadata<?, ?> record, byte[] value,
            EventHandlers handlers) {
        EventEnvelope envelope = IncomingEvents.decode(record, value);
        var route = handlers.routeOf(envelope.eventType());
        if (route.isEmpty()) {
            return Uni.createFrom().item(Outcome.IGNORED);
        }
        Object event = route.get().decode(envelope);
        TraceContext.set(envelope.traceContext());
        return Panache.withTransaction(() -> claim(consumer, envelope).chain(claimed -> {
            if (!claimed) {
                LOG.debugf("%s skips duplicate %s %s", consumer, envelope.eventType(), envelope.eventId());
                return Uni.createFrom().item(Outcome.DUPLICATE);
            }
            return route.get().apply(event, envelope).replaceWith(Outcome.PROCESSED);
        })).invoke(outcome -> {
            if (outcome == Outcome.PROCESSED) {
                metrics.lag(consumer, envelope.recordedAt(), clock.instant());
            }
        });
    }

    private static Uni<Boolean> claim(String consumer, EventEnvelope envelope) {
        return Panache.getSession().chain(session -> session.createNativeQuery(CLAIM)
                .setParameter("consumer", consumer)
                .setParameter("eventId", envelope.eventId())
                .setParameter("eventType", envelope.eventType())
                .setParameter("aggregateType", envelope.aggregateType())
                .setParameter("aggregateId", envelope.aggregateId())
                .setParameter("recordedAt", envelope.recordedAt())
                .executeUpdate()
                .map(inserted -> inserted == 1));
    }

    /** Hibernate Reactive needs the Vert.x context the record arrived on, also for retries that a timer starts. */
    private static Executor onCurrentContext() {
        Context context = Vertx.currentContext();
        if (context == null) {
            throw new IllegalStateException("the inbox must be called on a Vert.x context (a @Incoming method)");
        }
        return task -> context.runOnContext(ignored -> task.run());
    }
}
