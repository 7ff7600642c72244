package dev.umbra.audit.attribution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.audit.attribution.AttributionRules.AggregateRef;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventCatalog;
import dev.umbra.events.EventCodec;
import dev.umbra.events.billing.BillingKeyIssued;
import dev.umbra.events.billing.InvoiceGenerated;
import dev.umbra.events.billing.PaymentSucceeded;
import dev.umbra.events.billing.RefundSucceeded;
import dev.umbra.events.identity.UserSessionCreated;
import dev.umbra.events.licensing.LicenseExtended;
import dev.umbra.events.recovery.RestoreCompleted;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class AttributionRulesTest {

    private static final Instant NOW = Instant.parse("2026-03-01T00:00:00Z");

    private static List<AggregateRef> resolvers(DomainEvent event) {
        return AttributionRules.resolvers(aggregateTypeOf(event), event.aggregateId(), EventCodec.toTree(event));
    }

    private static String aggregateTypeOf(DomainEvent event) {
        return EventCatalog.entryOf(event.getClass()).aggregateType();
    }

    @Test
    void anAggregateOfOneGuildResolvesItsOwnEvents() {
        UUID license = UUID.randomUUID();
        assertThat(AttributionRules.ownedAggregate("license", license.toString())).contains(new AggregateRef("license", license.toString()));
        assertThat(AttributionRules.ownedAggregate("guild", "123456789012345678")).isEmpty();
    }

    @Test
    void anEventThatNamesNoGuildIsResolvedThroughItsAggregateAndWhatItRefersTo() {
        UUID license = UUID.randomUUID();
        UUID subscription = UUID.randomUUID();
        UUID invoice = UUID.randomUUID();
        UUID restore = UUID.randomUUID();

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
        assertThat(resolvers(new UserSessionCreated(user, "ref"))).isEmpty();
        assertThat(resolvers(new BillingKeyIssued(user, UUID.randomUUID()))).isEmpty();
    }

    @Test
    void anAggregateTypeNobodyDeclaredWaitsForNothing() {
        assertThat(AttributionRules.resolvers("giveaway", "g-1", EventCodec.parse("{}".getBytes()))).isEmpty();
    }
}
