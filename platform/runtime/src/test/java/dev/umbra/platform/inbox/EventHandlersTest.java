package dev.umbra.platform.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.umbra.events.EventCodec;
import dev.umbra.events.EventEnvelope;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import io.smallrye.mutiny.Uni;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class EventHandlersTest {

    private static final AnyEventHandler.RecordPosition POSITION = new AnyEventHandler.RecordPosition("umbra.guild", 2, 41);

    private static EventEnvelope envelope(String eventType, String payload) {
        return new EventEnvelope(UUID.randomUUID(), "guild", "123456789012345678", eventType, Instant.now(), Instant.now(), Instant.now(), 1, 1,
                null,
                EventCodec.parse(payload.getBytes()));
    }

    /** What the inbox does with a claimed record: decode it as its route says, then apply it. */
    private static void apply(EventHandlers handlers, EventEnvelope envelope) {
        EventHandlers.Route route = handlers.routeOf(envelope.eventType()).orElseThrow();
        route.apply(route.decode(envelope), envelope, POSITION).await().indefinitely();
    }

    @Test
    void anEventTypeWithItsOwnHandlerGoesThereAndAnyOtherToTheHandlerOfAnyEvent() {
        List<String> calls = new ArrayList<>();
        EventHandlers handlers = EventHandlers.builder()
                .on(BotInstalled.class, (event, envelope) -> {
                    calls.add("installed " + event.guildId());
                    return Uni.createFrom().voidItem();
                })
                .onAnyOther(events -> {
                    events.forEach(event -> calls.add("any " + event.envelope().eventType() + " at " + event.position().topic() + "-"
                            + event.position().partition() + "@" + event.position().offset()));
                    return Uni.createFrom().voidItem();
                })
                .build();

        EventEnvelope installed = envelope("BotInstalled", "{\"guild_id\":\"123456789012345678\",\"installer_user_id\":\"223456789012345678\"}");
        apply(handlers, installed);
        EventEnvelope unknown = envelope("SomethingNew", "{\"whatever\":1}");
        apply(handlers, unknown);

        assertThat(calls).containsExactly("installed 123456789012345678", "any SomethingNew at umbra.guild-2@41");
    }

    @Test
    void withoutAHandlerOfAnyEventOtherTypesAreSkipped() {
        EventHandlers handlers = EventHandlers.builder().on(BotKicked.class, (event, envelope) -> Uni.createFrom().voidItem()).build();

        assertThat(handlers.routeOf("BotKicked")).isPresent();
        assertThat(handlers.routeOf("BotInstalled")).isEmpty();
    }

    @Test
    void oneHandlerOfAnyEventAtMost() {
        AnyEventHandler handler = events -> Uni.createFrom().voidItem();
        assertThatThrownBy(() -> EventHandlers.builder().onAnyOther(handler).onAnyOther(handler))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aFedReadModelLearnsFromItsEventsBeforeTheConsumersHandlerAndAloneFromTheOthers() {
        List<String> calls = new ArrayList<>();
        ReadModel readModel = feed -> feed
                .onEvery(envelope -> {
                    calls.add("model sees " + envelope.eventType());
                    return Uni.createFrom().voidItem();
                })
                .on(BotKicked.class, (event, envelope) -> {
                    calls.add("model learns kicked " + event.guildId());
                    return Uni.createFrom().voidItem();
                });
        EventHandlers handlers = EventHandlers.builder()
                .on(BotKicked.class, (event, envelope) -> {
                    calls.add("consumer kicked " + event.guildId());
                    return Uni.createFrom().voidItem();
                })
                .feeding(readModel)
                .build();

        EventEnvelope kicked = envelope("BotKicked", "{\"guild_id\":\"123456789012345678\"}");
        apply(handlers, kicked);
        EventEnvelope other = envelope("SomethingNew", "{}");
        apply(handlers, other);

        assertThat(calls).containsExactly("model sees BotKicked", "model learns kicked 123456789012345678",
                "consumer kicked 123456789012345678", "model sees SomethingNew");
    }

    @Test
    void theHandlerOfAnyOtherEventTakesRunsInOrderAndCannotGoWithAFedReadModel() {
        List<String> calls = new ArrayList<>();
        EventHandlers handlers = EventHandlers.builder()
                .onAnyOther(events -> {
                    calls.add(String.join(", ", events.stream().map(event -> event.envelope().eventType()).toList()));
                    return Uni.createFrom().voidItem();
                })
                .build();
        EventHandlers.Route route = handlers.routeOf("BotKicked").orElseThrow();
        assertThat(route).isSameAs(handlers.routeOf("SomethingNew").orElseThrow());
        assertThat(route.together()).isTrue();
        EventEnvelope kicked = envelope("BotKicked", "{\"guild_id\":\"123456789012345678\"}");
        EventEnvelope other = envelope("SomethingNew", "{}");
        route.applyAll(List.of(new EventHandlers.Arrival(route.decode(kicked), kicked, POSITION, null),
                new EventHandlers.Arrival(route.decode(other), other, POSITION, null))).await().indefinitely();
        assertThat(calls).containsExactly("BotKicked, SomethingNew");

        assertThatThrownBy(() -> EventHandlers.builder()
                .feeding(feed -> feed.on(BotKicked.class, (event, envelope) -> Uni.createFrom().voidItem()))
                .onAnyOther(events -> Uni.createFrom().voidItem())
                .build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aReadModelIsFedOnceByAConsumer() {
        ReadModel readModel = feed -> feed.onEvery(envelope -> Uni.createFrom().voidItem());
        assertThatThrownBy(() -> EventHandlers.builder().feeding(readModel).feeding(readModel))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTypeHandledInRunsGetsTheRunsEventsInOrderAndAloneAsARunOfOne() {
        List<String> calls = new ArrayList<>();
        EventHandlers handlers = EventHandlers.builder()
                .onBatch(BotKicked.class, kicks -> {
                    calls.add(kicks.stream().map(kick -> kick.event().guildId() + "@" + kick.traceContext()).toList().toString());
                    return Uni.createFrom().voidItem();
                })
                .build();
        EventHandlers.Route route = handlers.routeOf("BotKicked").orElseThrow();
        EventEnvelope first = envelope("BotKicked", "{\"guild_id\":\"111111111111111111\"}");
        EventEnvelope second = envelope("BotKicked", "{\"guild_id\":\"222222222222222222\"}");

        assertThat(route.together()).isTrue();
        route.applyAll(List.of(new EventHandlers.Arrival(route.decode(first), first, POSITION, "t1"),
                new EventHandlers.Arrival(route.decode(second), second, POSITION, "t2"))).await().indefinitely();
        apply(handlers, first);

        assertThat(calls).containsExactly("[111111111111111111@t1, 222222222222222222@t2]", "[111111111111111111@null]");
    }

    @Test
    void aTypeThatFeedsAReadModelIsNotHandledInRunsAndATypeHasOneHandler() {
        BatchEventHandler<BotKicked> runs = kicks -> Uni.createFrom().voidItem();
        ReadModel learnsKicks = feed -> feed.on(BotKicked.class, (event, envelope) -> Uni.createFrom().voidItem());
        ReadModel seesAll = feed -> feed.onEvery(envelope -> Uni.createFrom().voidItem());
        assertThatThrownBy(() -> EventHandlers.builder().onBatch(BotKicked.class, runs).feeding(learnsKicks).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EventHandlers.builder().onBatch(BotKicked.class, runs).feeding(seesAll).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EventHandlers.builder().onBatch(BotKicked.class, runs).on(BotKicked.class, (event, envelope) -> Uni.createFrom().voidItem()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(EventHandlers.builder().onBatch(BotKicked.class, runs).feeding(feed -> feed.on(BotInstalled.class,
                (event, envelope) -> Uni.createFrom().voidItem())).build().routeOf("BotKicked")).isPresent();
    }
}
