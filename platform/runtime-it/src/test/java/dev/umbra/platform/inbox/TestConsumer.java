package dev.umbra.platform.inbox;

import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import com.fasterxml.jackson.core.JsonParseException;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * A consumer as a service would write one, whose handlers misbehave on purpose according to the
 * guild id's last two digits: 99 is rejected, 98 fails every time, 97 breaks a unique key every time
 * (it claims its event a second time), 94 fails on JSON that does not parse, 96 hangs until {@link #release()},
 * 93 fails once, then breaks the unique key three times (as lost races do), then applies; 92 takes 100 ms per event
 * its transaction claimed, past a statement timeout from four on.
 * Any other guild is recorded in {@code applied_event}. BotInstalled has a handler of one event,
 * BotKicked a handler of runs of events ({@link BatchEventHandler}) that behaves the same per event.
 * Every try of a handler reports its event {@link AfterCommit after the commit}, which only the try that commits does.
 */
@ApplicationScoped
public class TestConsumer {

    static final String TOPIC = "umbra.inbox-test";
    static final String NAME = "inbox-test";

    private final Inbox inbox;
    private final EventHandlers handlers;
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final CompletableFuture<Void> release = new CompletableFuture<>();
    private final AtomicInteger longestRun = new AtomicInteger();
    private final Map<UUID, AtomicInteger> reported = new ConcurrentHashMap<>();

    public TestConsumer(Inbox inbox) {
        this.inbox = inbox;
        this.handlers = EventHandlers.builder()
                .on(BotInstalled.class, (event, envelope) -> apply(event.guildId(), envelope.eventId()))
                .onBatch(BotKicked.class, kicks -> {
                    longestRun.accumulateAndGet(kicks.size(), Math::max);
                    if (kicks.size() > 1 && kicks.stream().anyMatch(kick -> kick.event().guildId().endsWith("95"))) {
                        // a wrong batch handler: each of these records applies on its own, the run of them does not
                        return Uni.createFrom().failure(new IllegalStateException("a run with a guild ending in 95"));
                    }
                    Uni<Void> inOrder = Uni.createFrom().voidItem();
                    for (Delivered<BotKicked> kick : kicks) {
                        inOrder = inOrder.chain(() -> apply(kick.event().guildId(), kick.envelope().eventId()));
                    }
                    return inOrder;
                })
                .build();
    }

    @Incoming("test-events")
    public Uni<Void> consume(Message<List<byte[]>> batch) {
        return inbox.consume(NAME, batch, handlers);
    }

    int attemptsFor(String guildId) {
        return attempts.getOrDefault(guildId, new AtomicInteger()).get();
    }

    /** How many of the event's handler tries reported it after their transaction committed. */
    int reportsOf(UUID eventId) {
        return reported.getOrDefault(eventId, new AtomicInteger()).get();
    }

    /** The most BotKicked events applied in one call of the handler of runs since the last time it was asked. */
    int longestRunSinceAsked() {
        return longestRun.getAndSet(0);
    }

    /** Lets the handlers that hang (guild ids ending in 96) finish. */
    void release() {
        release.complete(null);
    }

    private Uni<Void> apply(String guildId, UUID eventId) {
        attempts.computeIfAbsent(guildId, id -> new AtomicInteger()).incrementAndGet();
        AfterCommit.run(() -> reported.computeIfAbsent(eventId, id -> new AtomicInteger()).incrementAndGet());
        return switch (guildId.substring(guildId.length() - 2)) {
            case "99" -> Uni.createFrom().failure(new RejectedEventException("guild " + guildId + " is refused"));
            case "98" -> Uni.createFrom().failure(new IllegalStateException("guild " + guildId + " always fails"));
            case "97" -> claimAgain(eventId);
            case "93" -> switch (attemptsFor(guildId)) {
                case 1 -> Uni.createFrom().failure(new IllegalStateException("guild " + guildId + " fails once"));
                case 2, 3, 4 -> claimAgain(eventId);
                default -> record(eventId, guildId);
            };
            case "94" -> Uni.createFrom().failure(new UncheckedIOException(new JsonParseException(null, "guild " + guildId + ": not JSON")));
            case "92" -> slowerTheMoreClaimed().chain(() -> record(eventId, guildId));
            // a stage of its own per attempt: the timeout cancels it, not the release itself. The release
            // completes on the test's thread; like any client's callback, the handler comes back to its context.
            case "96" -> {
                io.vertx.core.Context context = io.vertx.core.Vertx.currentContext();
                yield Uni.createFrom().completionStage(release.thenApply(released -> released))
                        .emitOn(task -> context.runOnContext(ignored -> task.run()))
                        .chain(() -> record(eventId, guildId));
            }
            default -> record(eventId, guildId);
        };
    }

    /**
     * A statement that takes 100 ms for every event its transaction claimed, under a statement timeout of 350 ms: an
     * attempt of four or more records runs out of time every time, one of up to three passes.
     */
    private static Uni<Void> slowerTheMoreClaimed() {
        return Panache.getSession().chain(session -> session.createNativeQuery("set local statement_timeout = '350ms'").executeUpdate()
                .chain(() -> session.createNativeQuery("select 1 from (select pg_sleep(0.1 * count(*)) from processed_event "
                        + "where xmin::text = (pg_current_xact_id()::text::bigint % 4294967296)::text) slept").getSingleResult()))
                .replaceWithVoid();
    }

    private static Uni<Void> claimAgain(UUID eventId) {
        return Panache.getSession().chain(session -> session
                .createNativeQuery("insert into processed_event select * from processed_event where consumer = ?1 and event_id = ?2")
                .setParameter(1, NAME).setParameter(2, eventId).executeUpdate()).replaceWithVoid();
    }

    private static Uni<Void> record(UUID eventId, String guildId) {
        return Panache.getSession().chain(session -> session
                .createNativeQuery("insert into applied_event (event_id, guild_id) values (?1, ?2)")
                .setParameter(1, eventId)
                .setParameter(2, guildId)
                .executeUpdate()).replaceWithVoid();
    }
}
