package dev.umbra.audit.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventCatalog;
import dev.umbra.events.EventCodec;
import dev.umbra.events.EventEnvelope;
import dev.umbra.events.billing.InvoiceGenerated;
import dev.umbra.events.billing.PaymentSucceeded;
import dev.umbra.events.billing.RefundSucceeded;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.licensing.LicenseExtended;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.platform.inbox.AnyEventHandler;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.Snowflakes;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The audit log stores and attributes a run of records with a few statements; it must leave exactly what
 * the same records one at a time leave. The same scenario (fresh ids, the same timestamps) is recorded
 * once as one run and once as runs of one, and every row it leaves is compared.
 */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "audit"))
class RunsIT {

    private static final Instant BASE = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    @InjectDevstack
    Database db;

    @Inject
    AuditLog log;

    /** The scenario's events and what stands for its guild and aggregates in the rows it leaves. */
    private record Scenario(List<AnyEventHandler.Received> records, String guild, List<String> aggregates) {

        /** A row's value with this scenario's ids named by their role, so that two scenarios compare. */
        String named(String value) {
            if (value == null) {
                return null;
            }
            String named = value.replace(guild, "GUILD");
            for (int i = 0; i < aggregates.size(); i++) {
                named = named.replace(aggregates.get(i), "AGGREGATE-" + i);
            }
            return named;
        }
    }

    /**
     * Events that wait for their guild (a license's extension, a subscription's payment, its invoice, whose
     * refund waits for the invoice), then the events that name it (the license's grant, the subscription's
     * start, which releases the payment and the invoice, which releases the refund in turn), an event whose
     * guild is known by then, and one that names its guild without teaching anything.
     */
    private static Scenario scenario() {
        String guild = Snowflakes.random();
        UUID license = UUID.randomUUID();
        UUID subscription = UUID.randomUUID();
        UUID invoice = UUID.randomUUID();
        UUID refund = UUID.randomUUID();
        List<DomainEvent> events = List.of(
                new LicenseExtended(license, BASE.plus(30, ChronoUnit.DAYS)),
                new PaymentSucceeded(subscription, UUID.randomUUID(), BASE.plus(30, ChronoUnit.DAYS)),
                new InvoiceGenerated(invoice, subscription, BASE, BASE.plus(30, ChronoUnit.DAYS), new BigDecimal("9.90"), "EUR"),
                new RefundSucceeded(refund, invoice, new BigDecimal("5.00"), "EUR"),
                new LicenseGranted(license, guild, "PRO"),
                new SubscriptionStarted(subscription, guild, "PRO", BASE.plus(30, ChronoUnit.DAYS)),
                new LicenseExtended(license, BASE.plus(60, ChronoUnit.DAYS)),
                new BotInstalled(guild, Snowflakes.random()));
        List<AnyEventHandler.Received> records = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            DomainEvent event = events.get(i);
            EventCatalog.Entry entry = EventCatalog.entryOf(event.getClass());
            // one second apart in record time, so that a known_at taken from the wrong event shows
            EventEnvelope envelope = new EventEnvelope(UUID.randomUUID(), entry.aggregateType(), event.aggregateId(), entry.eventType(),
                    BASE.plusMillis(i), BASE.plusSeconds(i), BASE.plusSeconds(i), i + 1, entry.schemaVersion(), null, EventCodec.toTree(event));
            records.add(new AnyEventHandler.Received(envelope, new AnyEventHandler.RecordPosition("umbra." + entry.aggregateType(), 0, i)));
        }
        return new Scenario(records, guild, List.of(license.toString(), subscription.toString(), invoice.toString(), refund.toString()));
    }

    @Test
    void aRunLeavesWhatItsRecordsOneAtATimeLeaveAndARunRecordedAgainChangesNothing() throws Throwable {
        Scenario asOneRun = scenario();
        record(asOneRun.records());
        Scenario oneAtATime = scenario();
        for (AnyEventHandler.Received received : oneAtATime.records()) {
            record(List.of(received));
        }

        List<List<String>> leftByTheRun = rowsOf(asOneRun);
        assertThat(leftByTheRun).isEqualTo(rowsOf(oneAtATime));
        // and what that is: every event stored and attributed to the guild, known once the event that told it was recorded
        assertThat(leftByTheRun.subList(0, 8)).extracting(row -> row.get(1) + " " + row.get(2)).containsExactly(
                "GUILD " + BASE.plusSeconds(4), "GUILD " + BASE.plusSeconds(5), "GUILD " + BASE.plusSeconds(5), "GUILD " + BASE.plusSeconds(5),
                "GUILD " + BASE.plusSeconds(4), "GUILD " + BASE.plusSeconds(5), "GUILD " + BASE.plusSeconds(6), "GUILD " + BASE.plusSeconds(7));

        record(asOneRun.records());
        assertThat(rowsOf(asOneRun)).isEqualTo(leftByTheRun);
    }

    private void record(List<AnyEventHandler.Received> run) throws Throwable {
        VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(() -> log.recordAll(run)));
    }

    /**
     * Per record: how often it is stored, its guild and since when that is known, how many rows still wait
     * for it; then the read model's guild of each aggregate. Ids as the scenario names them.
     */
    private List<List<String>> rowsOf(Scenario scenario) {
        List<List<String>> rows = new ArrayList<>();
        for (AnyEventHandler.Received received : scenario.records()) {
            UUID id = received.envelope().eventId();
            String guild = db.count("select count(*) from audit_guild where event_id = ?", id) == 0 ? null
                    : db.text("select guild_id || ' ' || to_char(known_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') "
                            + "from audit_guild where event_id = ?", id);
            rows.add(List.of(Long.toString(db.count("select count(*) from audit_log where event_id = ?", id)),
                    String.valueOf(scenario.named(guild == null ? null : guild.split(" ")[0])),
                    guild == null ? "none" : guild.split(" ")[1],
                    Long.toString(db.count("select count(*) from audit_unattributed where event_id = ?", id))));
        }
        for (String aggregate : scenario.aggregates()) {
            rows.add(db.rows("select aggregate_type, guild_id from aggregate_guild where aggregate_id = ?", aggregate).stream()
                    .map(row -> row.stream().map(scenario::named).toList()).findFirst().orElse(List.of("not learned")));
        }
        return rows;
    }
}
