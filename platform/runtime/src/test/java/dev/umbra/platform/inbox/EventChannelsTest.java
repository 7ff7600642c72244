package dev.umbra.platform.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.events.Aggregates;
import dev.umbra.events.EventCatalog;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EventChannelsTest {

    private static SmallRyeConfig config(Map<String, String> properties) {
        return new SmallRyeConfigBuilder().addDefaultInterceptors()
                .withSources(new EventChannels())
                .withSources(new PropertiesConfigSource(properties, "application.properties", 250))
                .build();
    }

    @Test
    void aChannelNamedAfterAnAggregateReadsItsTopicInTheServicesGroupForThatTopic() {
        SmallRyeConfig config = config(Map.of("quarkus.application.name", "billing-service"));

        assertThat(config.getValue("mp.messaging.incoming.billing-key-events.topic", String.class)).isEqualTo("umbra.billing_key");
        assertThat(config.getValue("mp.messaging.incoming.billing-key-events.group.id", String.class))
                .isEqualTo("billing-service.umbra.billing_key");
        assertThat(config.getValue("mp.messaging.incoming.guild-events.group.id", String.class)).isEqualTo("billing-service.umbra.guild");
        assertThat(config.getValue("mp.messaging.incoming.guild-events.concurrency", Integer.class)).as("a pipeline per channel").isOne();
    }

    @Test
    void aPropertyOverridesTheRuleForItsChannelOnly() {
        SmallRyeConfig config = config(Map.of("quarkus.application.name", "guild-service",
                "mp.messaging.incoming.license-events.group.id", "guild-service.replay",
                "mp.messaging.incoming.license-events.concurrency", "3"));

        assertThat(config.getValue("mp.messaging.incoming.license-events.group.id", String.class)).isEqualTo("guild-service.replay");
        assertThat(config.getValue("mp.messaging.incoming.license-events.topic", String.class)).isEqualTo("umbra.license");
        assertThat(config.getValue("mp.messaging.incoming.license-events.concurrency", Integer.class)).isEqualTo(3);
        assertThat(config.getValue("mp.messaging.incoming.anti-nuke-events.group.id", String.class)).isEqualTo("guild-service.umbra.anti_nuke");
    }

    @Test
    void otherChannelsAndOtherAttributesAreLeftToTheirProperties() {
        EventChannels rule = new EventChannels();

        assertThat(rule.getValue("mp.messaging.incoming.test-events.topic")).isNull();
        assertThat(rule.getValue("mp.messaging.incoming.guild_events.topic")).as("only the channel's own spelling").isNull();
        assertThat(rule.getValue("mp.messaging.incoming.guild-events$2.topic")).as("a concurrent copy falls back to its channel").isNull();
        assertThat(rule.getValue("mp.messaging.incoming.guild-events.max.poll.records")).isNull();
        assertThat(rule.getValue("mp.messaging.outgoing.guild-events.topic")).isNull();
        assertThat(rule.getPropertyNames()).as("no channel exists that no method reads").isEmpty();
    }

    @Test
    void everyAggregateOfTheCatalogueHasItsChannelAndEveryChannelAnAggregate() throws IllegalAccessException {
        Set<String> channels = constants(EventChannels.class);

        assertThat(channels).containsExactlyInAnyOrderElementsOf(EventCatalog.entries().stream()
                .map(EventCatalog.Entry::aggregateType).distinct().map(EventChannels::of).toList());
        assertThat(constants(Aggregates.class)).allSatisfy(aggregate ->
                assertThat(EventChannels.aggregateOf(EventChannels.of(aggregate))).contains(aggregate));
    }

    private static Set<String> constants(Class<?> type) throws IllegalAccessException {
        Set<String> values = new HashSet<>();
        for (Field field : type.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (Modifier.isPublic(modifiers) && Modifier.isStatic(modifiers) && field.getType() == String.class) {
                values.add((String) field.get(null));
            }
        }
        return values;
    }
}
