package dev.umbra.platform.inbox;

import dev.umbra.events.EventDecodingException;
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
import java.time.Duration;
import java.util.concurrent.Executor;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

/**
 * The consuming side of every service. For each record: decode the envelope, then in ONE transaction
 * claim the event in {@code processed_event} (a duplicate claims nothing and is skipped) and apply
 * the handler, whose writes and outbox events commit together with the claim. The record is acked
 * after the commit. Failures are retried with backoff; a record that can never be applied, or still
 * fails after the last attempt, goes to the dead-letter topic and the consumer carries on.
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
    private final int maxAttempts;
    private final Duration initialBackoff;
    private final Duration maxBackoff;

    public Inbox(DeadLetters deadLetters, InboxMetrics metrics, Clock clock,
            @ConfigProperty(name = "umbra.inbox.max-attempts") int maxAttempts,
            @ConfigProperty(name = "umbra.inbox.initial-backoff") Duration initialBackoff,
            @ConfigProperty(name = "umbra.inbox.max-backoff") Duration maxBackoff) {
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.clock = clock;
        this.maxAttempts = maxAttempts;
        this.initialBackoff = initialBackoff;
        this.maxBackoff = maxBackoff;
    }

    @SuppressWarnings("unchecked")
    public Uni<Void> consume(String consumer, Message<byte[]> message, EventHandlers handlers) {
        IncomingKafkaRecordMetadata<?, ?> record = message.getMetadata(IncomingKafkaRecordMetadata.class)
                .orElseThrow(() -> new IllegalStateException("the inbox consumes Kafka records only"));
        String eventType = IncomingEvents.optional(record.getHeaders(), EventHeaders.EVENT_TYPE);
        Executor onThisContext = onCurrentContext();
        return Uni.createFrom().deferred(() -> attempt(consumer, record, message.getPayload(), handlers))
                .runSubscriptionOn(onThisContext)
                .onFailure().invoke(error -> metrics.failedAttempt(consumer, eventType))
                .onFailure(Inbox::worthRetrying).retry().withBackOff(initialBackoff, maxBackoff).atMost(maxAttempts - 1L)
                .onFailure().recoverWithUni(error -> deadLetters.send(consumer, record, message.getPayload(), error)
                        .emitOn(onThisContext)
                        .replaceWith(Outcome.DEAD_LETTERED))
                .invoke(outcome -> metrics.outcome(consumer, eventType, outcome))
                .chain(outcome -> Uni.createFrom().completionStage(message.ack()));
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

    /** A record that does not decode, or that its handler rejects, fails the same way every time. */
    static boolean worthRetrying(Throwable error) {
        return !(error instanceof EventDecodingException) && !(error instanceof RejectedEventException);
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
