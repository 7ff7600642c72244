package dev.umbra.licensing.inbox;

import dev.umbra.events.guild.BotKicked;
import dev.umbra.platform.inbox.EventHandlers;
import dev.umbra.platform.inbox.Inbox;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * A consumer whose handler fails as many times as the kicked guild's id ends in (…02 fails twice),
 * so that tests can watch the inbox retry and, past its last attempt, dead-letter.
 */
@ApplicationScoped
public class FlakyConsumer {

    static final String TOPIC = "umbra.test-flaky";

    private final Inbox inbox;
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final EventHandlers handlers;

    public FlakyConsumer(Inbox inbox) {
        this.inbox = inbox;
        this.handlers = EventHandlers.builder().on(BotKicked.class, (event, envelope) -> {
            int attempt = attempts.computeIfAbsent(event.guildId(), id -> new AtomicInteger()).incrementAndGet();
            int failures = Integer.parseInt(event.guildId().substring(event.guildId().length() - 2));
            return attempt <= failures
                    ? Uni.createFrom().failure(new IllegalStateException("attempt " + attempt + " fails"))
                    : Uni.createFrom().voidItem();
        }).build();
    }

    int attemptsFor(String guildId) {
        return attempts.getOrDefault(guildId, new AtomicInteger()).get();
    }

    @Incoming("flaky-events")
    public Uni<Void> consume(Message<List<byte[]>> batch) {
        return inbox.consume("flaky", batch, handlers);
    }
}
