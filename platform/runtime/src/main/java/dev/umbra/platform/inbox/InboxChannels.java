package dev.umbra.platform.inbox;

import dev.umbra.events.EventCatalog;
import dev.umbra.events.Topics;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * The Kafka channels of the inbox, derived from the event catalogue so that no service keeps them
 * by hand: for every aggregate type {@code a}, the channel {@code <a>-events} reads topic
 * {@link Topics#of Topics.of(a)} in the consumer group {@code <service>.<topic>} (one group per
 * service and topic), with one Kafka consumer per partition up to {@code umbra.inbox.consumers-per-channel}.
 * A service consumes a channel by naming it in {@code @Incoming} ({@link #of}); Quarkus attaches the
 * Kafka connector to the channels that are used, and the rest of this configuration stays inert.
 * Its ordinal is below {@code application.properties}, which may still override any of it.
 */
public class InboxChannels implements ConfigSource {

    public static final String SUFFIX = "-events";

    private static final Map<String, String> PROPERTIES = properties();

    /** The channel of an aggregate type's topic, e.g. {@code guild-events}. */
    public static String of(String aggregateType) {
        return aggregateType + SUFFIX;
    }

    private static Map<String, String> properties() {
        Map<String, String> properties = new TreeMap<>();
        EventCatalog.entries().stream().map(EventCatalog.Entry::aggregateType).distinct().forEach(aggregate -> {
            String prefix = "mp.messaging.incoming." + of(aggregate) + ".";
            properties.put(prefix + "topic", Topics.of(aggregate));
            properties.put(prefix + "group.id", "${quarkus.application.name}." + Topics.of(aggregate));
            properties.put(prefix + "concurrency", "${umbra.inbox.consumers-per-channel}");
        });
        return Map.copyOf(properties);
    }

    @Override
    public Map<String, String> getProperties() {
        return PROPERTIES;
    }

    @Override
    public Set<String> getPropertyNames() {
        return PROPERTIES.keySet();
    }

    @Override
    public String getValue(String propertyName) {
        return PROPERTIES.get(propertyName);
    }

    @Override
    public String getName() {
        return "umbra-inbox-channels";
    }

    @Override
    public int getOrdinal() {
        return 150;
    }
}
