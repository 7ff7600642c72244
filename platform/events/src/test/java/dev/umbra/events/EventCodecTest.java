package dev.umbra.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.umbra.events.billing.PaymentSucceeded;
import dev.umbra.events.guild.BotInstalled;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class EventCodecTest {

    @Test
    void writesSnakeCaseAndIsoInstants() {
        UUID subscription = UUID.randomUUID();
        UUID attempt = UUID.randomUUID();
        String json = EventCodec.toJson(new PaymentSucceeded(subscription, attempt, Instant.parse("2026-12-01T00:00:00Z")));

        assertThat(json).isEqualTo("{\"subscription_id\":\"" + subscription + "\",\"attempt_id\":\"" + attempt
                + "\",\"new_period_end\":\"2026-12-01T00:00:00Z\"}");
    }

    @Test
    void readsPayloadsWithFieldsAddedByANewerProducer() {
        var tree = EventCodec.parse(bytes("{\"guild_id\":\"123456789012345678\",\"installer_user_id\":\"42\",\"locale\":\"ko\"}"));

        assertThat(EventCodec.fromTree(tree, BotInstalled.class))
                .isEqualTo(new BotInstalled("123456789012345678", "42"));
    }

    @Test
    void rejectsWhatIsNotAJsonObject() {
        assertThatThrownBy(() -> EventCodec.parse(bytes("{not json")))
                .isInstanceOf(EventDecodingException.class);
        assertThatThrownBy(() -> EventCodec.parse(bytes("[1,2]")))
                .isInstanceOf(EventDecodingException.class);
    }

    @Test
    void rejectsAPayloadWithoutItsAggregateId() {
        var tree = EventCodec.parse(bytes("{\"installer_user_id\":\"42\"}"));

        assertThatThrownBy(() -> EventCodec.fromTree(tree, BotInstalled.class))
                .isInstanceOf(EventDecodingException.class)
                .hasMessageContaining("guildId");
    }

    @Test
    void wrapsAnEventInANewEnvelope() {
        Instant now = Instant.parse("2026-11-22T10:00:00Z");
        EventEnvelope envelope = EventEnvelope.wrap(new BotInstalled("123456789012345678", "42"), now, null);

        assertThat(envelope.aggregateType()).isEqualTo(Aggregates.GUILD);
        assertThat(envelope.aggregateId()).isEqualTo("123456789012345678");
        assertThat(envelope.eventType()).isEqualTo("BotInstalled");
        assertThat(envelope.schemaVersion()).isEqualTo(1);
        assertThat(envelope.payloadAs(BotInstalled.class).installerUserId()).isEqualTo("42");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
