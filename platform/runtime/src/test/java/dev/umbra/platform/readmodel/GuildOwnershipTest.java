package dev.umbra.platform.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventCatalog;
import dev.umbra.events.EventCodec;
import dev.umbra.events.billing.PaymentSucceeded;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.events.identity.UserSessionCreated;
import dev.umbra.events.licensing.LicenseExtended;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.events.recovery.AntiNukeActioned;
import dev.umbra.events.recovery.RestoreStarted;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class GuildOwnershipTest {

    private static final String GUILD = "123456789012345678";
    private static final Instant NOW = Instant.parse("2026-03-01T00:00:00Z");

    private static Optional<String> named(DomainEvent event) {
        return GuildOwnership.namedGuild(aggregateTypeOf(event), event.aggregateId(), EventCodec.toTree(event));
    }

    private static Optional<String> taught(DomainEvent event) {
        return GuildOwnership.guildTaughtBy(aggregateTypeOf(event), event.aggregateId(), EventCodec.toTree(event));
    }

    private static String aggregateTypeOf(DomainEvent event) {
        return EventCatalog.entryOf(event.getClass()).aggregateType();
    }

    @Test
    void anEventOfAnAggregateOfOneGuildThatNamesTheGuildTeachesIt() {
        assertThat(taught(new LicenseGranted(UUID.randomUUID(), GUILD, "PRO"))).contains(GUILD);
        assertThat(taught(new SubscriptionStarted(UUID.randomUUID(), GUILD, "PRO", NOW))).contains(GUILD);
        assertThat(taught(new RestoreStarted(UUID.randomUUID(), UUID.randomUUID(), GUILD))).contains(GUILD);
    }

    @Test
    void anEventThatNamesNoGuildTeachesNothing() {
        assertThat(taught(new LicenseExtended(UUID.randomUUID(), NOW))).isEmpty();
        assertThat(taught(new PaymentSucceeded(UUID.randomUUID(), UUID.randomUUID(), NOW))).isEmpty();
    }

    @Test
    void theEventsOfAGuildAggregateNameTheGuildOfTheirIdButTeachNothing() {
        assertThat(named(new BotKicked(GUILD))).contains(GUILD);
        assertThat(named(new AntiNukeActioned(GUILD, List.of("stripped")))).contains(GUILD);
        assertThat(taught(new BotKicked(GUILD))).isEmpty();
    }

    @Test
    void aPersonsEventsHaveNoGuild() {
        assertThat(named(new UserSessionCreated(UUID.randomUUID(), "ref"))).isEmpty();
        assertThat(GuildOwnership.belongsToOneGuild("user")).isFalse();
        assertThat(GuildOwnership.belongsToOneGuild("billing_key")).isFalse();
    }

    @Test
    void aGuildIdThatIsNoDiscordIdNamesNoGuild() {
        assertThat(GuildOwnership.namedGuild("giveaway", "g-1", EventCodec.parse("{\"guild_id\":\"not-a-snowflake\"}".getBytes()))).isEmpty();
        assertThat(GuildOwnership.namedGuild("guild", "42", EventCodec.parse("{}".getBytes()))).isEmpty();
        assertThat(GuildOwnership.namedGuild("giveaway", "g-1", EventCodec.parse(("{\"guild_id\":\"" + GUILD + "\"}").getBytes())))
                .contains(GUILD);
    }

    @Test
    void everyCatalogueAggregateIsAPersonsAGuildOrOneGuilds() {
        // an aggregate of none of these would never find its guild
        for (EventCatalog.Entry entry : EventCatalog.entries()) {
            boolean person = entry.aggregateType().equals("user") || entry.aggregateType().equals("billing_key");
            boolean guild = GuildOwnership.GUILD_AGGREGATES.contains(entry.aggregateType());
            assertThat(person || guild || GuildOwnership.belongsToOneGuild(entry.aggregateType())).as(entry.eventType()).isTrue();
        }
    }
}
