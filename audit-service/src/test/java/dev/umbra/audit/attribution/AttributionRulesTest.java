package dev.umbra.audit.attribution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.umbra.audit.attribution.AttributionRules.AggregateRef;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventCatalog;
import dev.umbra.events.EventCodec;
import dev.umbra.events.billing.BillingKeyIssued;
import dev.umbra.events.billing.InvoiceGenerated;
import dev.umbra.events.billing.PaymentSucceeded;
import dev.umbra.events.billing.RefundSucceeded;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.events.identity.UserSessionCreated;
import dev.umbra.events.licensing.LicenseExtended;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.events.recovery.AntiNukeActioned;
import dev.umbra.events.recovery.RestoreCompleted;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class AttributionRulesTest {

    private static final String GUILD = "123456789012345678";
    private static final Instant NOW = Instant.parse("2026-03-01T00:00:00Z");

    private static Optional<String> named(DomainEvent event) {
        return AttributionRules.namedGuild(aggregateTypeOf(event), event.aggregateId(), EventCodec.toTree(event));
    }

    private static List<AggregateRef> resolvers(DomainEvent event) {
        return AttributionRules.resolvers(aggregateTypeOf(event), event.aggregateId(), EventCodec.toTree(event));
    }

    private static String aggregateTypeOf(DomainEvent event) {
        return EventCatalog.entryOf(event.getClass()).aggregateType();
    }

    @Test
    void anEventThatNamesItsGuildIsThatGuildsAndTeachesItsAggregatesGuild() {
        UUID license = UUID.randomUUID();
        assertThat(named(new LicenseGranted(license, GUILD, "PRO"))).contains(GUILD);
        assertThat(AttributionRules.ownedAggregate("license", license.toString())).contains(new AggregateRef("license", license.toString()));
        assertThat(named(new SubscriptionStarted(UUID.randomUUID(), GUILD, "PRO", NOW))).contains(GUILD);
    }

    @Test
    void theEventsOfAGuildAggregateAreTheGuildOfItsId() {
        assertThat(named(new BotKicked(GUILD))).contains(GUILD);
        assertThat(named(new AntiNukeActioned(GUILD, List.of("stripped")))).contains(GUILD);
    }

    @Test
    void anEventThatNamesNoGuildIsResolvedThroughItsAggregateAndWhatItRefersTo() {
        UUID license = UUID.randomUUID();
        UUID subscription = UUID.randomUUID();
        UUID invoice = UUID.randomUUID();
        UUID restore = UUID.randomUUID();

        assertThat(named(new LicenseExtended(license, NOW))).isEmpty();
        assertThat(resolvers(new LicenseExtended(license, NOW))).containsExactly(new AggregateRef("license", license.toString()));
        assertThat(resolvers(new PaymentSucceeded(subscription, UUID.randomUUID(), NOW)))
                .containsExactly(new AggregateRef("subscription", subscription.toString()));
        assertThat(resolvers(new InvoiceGenerated(invoice, subscription, NOW, NOW, BigDecimal.ONE, "EUR")))
                .containsExactly(new AggregateRef("invoice", invoice.toString()), new AggregateRef("subscription", subscription.toString()));
        assertThat(resolvers(new RefundSucceeded(UUID.randomUUID(), invoice, BigDecimal.ONE, "EUR")))
                .containsExactly(new AggregateRef("invoice", invoice.toString()));
        assertThat(resolvers(new RestoreCompleted(restore, "ok"))).containsExactly(new AggregateRef("restore_job", restore.toString()));
    }

    @Test
    void aPersonsEventsHaveNoGuildAndWaitForNone() {
        UUID user = UUID.randomUUID();
        assertThat(named(new UserSessionCreated(user, "ref"))).isEmpty();
        assertThat(resolvers(new UserSessionCreated(user, "ref"))).isEmpty();
        assertThat(resolvers(new BillingKeyIssued(user, UUID.randomUUID()))).isEmpty();
    }

    @Test
    void anAggregateTypeNobodyDeclaredIsAttributedByItsGuildIdField() {
        JsonNode payload = EventCodec.parse(("{\"guild_id\":\"" + GUILD + "\"}").getBytes());
        assertThat(AttributionRules.namedGuild("giveaway", "g-1", payload)).contains(GUILD);
        assertThat(AttributionRules.resolvers("giveaway", "g-1", EventCodec.parse("{}".getBytes()))).isEmpty();
    }

    @Test
    void aGuildIdThatIsNoDiscordIdNamesNoGuild() {
        assertThat(AttributionRules.namedGuild("giveaway", "g-1", EventCodec.parse("{\"guild_id\":\"not-a-snowflake\"}".getBytes()))).isEmpty();
        assertThat(AttributionRules.namedGuild("guild", "42", EventCodec.parse("{}".getBytes()))).isEmpty();
    }

    @Test
    void everyCatalogueEventOfAGuildAggregateNamesOrResolvesItsGuild() {
        // a catalogue event that can never find its guild would silently stay unattributed
        for (EventCatalog.Entry entry : EventCatalog.entries()) {
            boolean person = entry.aggregateType().equals("user") || entry.aggregateType().equals("billing_key");
            boolean guildAggregate = AttributionRules.GUILD_AGGREGATES.contains(entry.aggregateType());
            boolean owned = AttributionRules.GUILD_OWNED.containsKey(entry.aggregateType());
            assertThat(person || guildAggregate || owned).as(entry.eventType()).isTrue();
        }
    }
}
