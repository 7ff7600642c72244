package dev.umbra.platform.inbox;

import dev.umbra.events.EventCatalog;
import dev.umbra.events.Topics;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * The Kafka wiring of every inbox channel, by rule, so that a consumer names the aggregates whose events
 * it reads ({@code @Incoming(EventChannels.GUILD)}) and declares nothing else. Channel
 * {@code <aggregate>-events} (the catalogue's aggregate type, hyphens for underscores) reads topic
 * {@code umbra.<aggregate>} in the consumer group {@code <quarkus.application.name>.umbra.<aggregate>}:
 * one group per service and topic. Quarkus attaches such a channel to the Kafka connector (its only one),
 * and the connector's defaults (deserialisers, batches, commit strategy) are the platform's
 * {@code META-INF/microprofile-config.properties}. Each channel has {@code concurrency} 1 unless a property
 * sets more: then SmallRye gives every channel of a method that reads several its own pipeline, which
 * applies that channel's batches one after the other and pauses its consumer while busy; without it, it
 * merges them into one pipeline with a queue of its own, where a partition waiting out a fault holds up
 * the other topics.
 *
 * <p>A configuration source rather than properties: it answers for any catalogue aggregate when asked
 * and lists nothing, so no channel exists that no method reads. Its ordinal is below every file, so a
 * property still overrides the rule for one channel.
 */
public final class EventChannels implements ConfigSource {

    public static final String GUILD = "guild-events";
    public static final String MEMBER = "member-events";
    public static final String USER = "user-events";
    public static final String BILLING_KEY = "billing-key-events";
    public static final String SUBSCRIPTION = "subscription-events";
    public static final String INVOICE = "invoice-events";
    public static final String LICENSE = "license-events";
    public static final String SNAPSHOT = "snapshot-events";
    public static final String RESTORE_JOB = "restore-job-events";
    public static final String ANTI_NUKE = "anti-nuke-events";

    static final int ORDINAL = 50;
    private static final String PREFIX = "mp.messaging.incoming.";
    private static final String SUFFIX = "-events";
    private static final Set<String> AGGREGATES = EventCatalog.entries().stream()
            .map(EventCatalog.Entry::aggregateType).collect(Collectors.toUnmodifiableSet());

    /** The channel that reads an aggregate type's topic. */
    public static String of(String aggregateType) {
        return aggregateType.replace('_', '-') + SUFFIX;
    }

    /** The aggregate type whose topic a channel reads, if the channel is named by the rule. */
    public static Optional<String> aggregateOf(String channel) {
        if (!channel.endsWith(SUFFIX)) {
            return Optional.empty();
        }
        String aggregate = channel.substring(0, channel.length() - SUFFIX.length()).replace('-', '_').toLowerCase(Locale.ROOT);
        return AGGREGATES.contains(aggregate) && of(aggregate).equals(channel) ? Optional.of(aggregate) : Optional.empty();
    }

    @Override
    public String getValue(String propertyName) {
        if (!propertyName.startsWith(PREFIX)) {
            return null;
        }
        String rest = propertyName.substring(PREFIX.length());
        int dot = rest.indexOf('.');
        if (dot < 0) {
            return null;
        }
        String attribute = rest.substring(dot + 1);
        return aggregateOf(rest.substring(0, dot)).map(aggregate -> switch (attribute) {
            case "topic" -> Topics.of(aggregate);
            case "group.id" -> "${quarkus.application.name}." + Topics.of(aggregate);
            case "concurrency" -> "1";
            default -> null;
        }).orElse(null);
    }

    @Override
    public Set<String> getPropertyNames() {
        return Set.of();
    }

    @Override
    public int getOrdinal() {
        return ORDINAL;
    }

    @Override
    public String getName() {
        return "umbra-event-channels";
    }
}
