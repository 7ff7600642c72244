package dev.umbra.platform.inbox;

import dev.umbra.events.guild.BotInstalled;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * A consumer as a service would write one, whose handler misbehaves on purpose according to the
 * guild id's last two digits: 99 is rejected, 98 fails every time, 96 hangs until {@link #release()}.
 * Any other guild is recorded in {@code applied_event}.
 */
@ApplicationScoped
public class TestConsumer {

    static final String TOPIC = "umbra.inbox-test";
    static final String NAME = "inbox-test";

    private final Inbox inbox;
    private final EventHandlers handlers;
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final CompletableFuture<Void> release = new CompletableFuture<>();

    public TestConsumer(Inbox inbox) {
        this.inbox = inbox;
        this.handlers = EventHandlers.builder().on(BotInstalled.class, (event, envelope) -> {
            attempts.computeIfAbsent(event.guildId(), id -> new AtomicInteger()).incrementAndGet();
            return switch (event.guildId().substring(event.guildId().length() - 2)) {
                case "99" -> Uni.createFrom().failure(new RejectedEventException("guild " + event.guildId() + " is refused"));
                case "98" -> Uni.createFrom().failure(new IllegalStateException("guild " + event.guildId() + " always fails"));
                // a stage of its own per attempt: the timeout cancels it, not the release itself. The release
                // completes on the test's thread; like any client's callback, the handler comes back to its context.
                case "96" -> {
                    io.vertx.core.Context context = io.vertx.core.Vertx.currentContext();
                    yield Uni.createFrom().completionStage(release.thenApply(released -> released))
                            .emitOn(task -> context.runOnContext(ignored -> task.run()))
                            .chain(() -> record(envelope.eventId(), event.guildId()));
                }
                default -> record(envelope.eventId(), event.guildId());
            };
        }).build();
    }

    @Incoming("test-events")
    public Uni<Void> consume(Message<List<byte[]>> batch) {
        return inbox.consume(NAME, batch, handlers);
    }

    int attemptsFor(String guildId) {
        return attempts.getOrDefault(guildId, new AtomicInteger()).get();
    }

    /** Lets the handlers that hang (guild ids ending in 96) finish. */
    void release() {
        release.complete(null);
    }

    private static Uni<Void> record(java.util.UUID eventId, String guildId) {
        return Panache.getSession().chain(session -> session
                .createNativeQuery("insert into applied_event (event_id, guild_id) values (?1, ?2)")
                .setParameter(1, eventId)
                .setParameter(2, guildId)
                .executeUpdate()).replaceWithVoid();
    }
}
