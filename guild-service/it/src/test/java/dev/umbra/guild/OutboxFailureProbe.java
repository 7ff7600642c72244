package dev.umbra.guild;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventEnvelope;
import dev.umbra.platform.outbox.OutboxWriter;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/** A unit of work that writes its outbox row and then fails, as a request would on a late error. */
@ApplicationScoped
public class OutboxFailureProbe {

    public static final class LateFailure extends RuntimeException {
        public final transient EventEnvelope written;

        LateFailure(EventEnvelope written) {
            super("failed after writing " + written.eventId());
            this.written = written;
        }
    }

    private final OutboxWriter outbox;

    public OutboxFailureProbe(OutboxWriter outbox) {
        this.outbox = outbox;
    }

    @WithTransaction
    public Uni<Void> publishThenFail(DomainEvent event) {
        return outbox.publish(event).chain(written -> Uni.createFrom().failure(new LateFailure(written)));
    }
}
