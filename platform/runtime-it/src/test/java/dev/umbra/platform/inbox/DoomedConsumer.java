package dev.umbra.platform.inbox;

import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/** A channel that fails for good on its first record, as a channel whose consumer broke would. */
@ApplicationScoped
public class DoomedConsumer {

    static final String TOPIC = "umbra.inbox-test-doomed";

    @Incoming("doomed-events")
    public Uni<Void> consume(Message<List<byte[]>> batch) {
        return Uni.createFrom().completionStage(batch.nack(new IllegalStateException("this channel is doomed")));
    }
}
