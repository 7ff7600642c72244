package dev.umbra.licensing.license;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventEnvelope;
import dev.umbra.events.StreamMark;
import dev.umbra.events.billing.PaymentFailedFinal;
import dev.umbra.events.billing.PaymentSucceeded;
import dev.umbra.events.billing.PlanDowngraded;
import dev.umbra.events.billing.PlanUpgraded;
import dev.umbra.events.billing.SubscriptionCanceled;
import dev.umbra.events.billing.SubscriptionResumed;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.billing.SubscriptionSuspended;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.events.guild.GuildDeleted;
import dev.umbra.events.plan.Plan;
import dev.umbra.platform.inbox.AfterCommit;
import dev.umbra.platform.inbox.Delivered;
import dev.umbra.platform.inbox.RejectedEventException;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.readmodel.AggregateGuilds;
import dev.umbra.platform.trace.TraceContext;
import dev.umbra.platform.web.ProblemException;
import dev.umbra.platform.workqueue.WorkQueue;
import dev.umbra.platform.workqueue.WorkQueues;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.hibernate.reactive.panache.common.WithSession;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Applies {@link LicenseRules} to stored licenses. Handlers run inside the inbox transaction: the
 * license and the outbox events commit together with the dedupe row. The guild of a subscription comes
 * from the platform's read model {@link AggregateGuilds}, which the subscription consumer feeds.
 */
@ApplicationScoped
public class LicenseService {

    private static final Logger LOG = Logger.getLogger(LicenseService.class);

    private final OutboxWriter outbox;
    private final Clock clock;
    private final WorkQueue sweeps;
    private final Duration grace;
    private final AggregateGuilds guilds;
    private final MeterRegistry registry;

    public LicenseService(OutboxWriter outbox, Clock clock, WorkQueues queues,
            @ConfigProperty(name = "licensing.sweeper.grace") Duration grace, AggregateGuilds guilds, MeterRegistry registry) {
        this.outbox = outbox;
        this.clock = clock;
        this.sweeps = queues.queue(LicenseSweeper.QUEUE);
        this.grace = grace;
        this.guilds = guilds;
        this.registry = registry;
    }

    /** Installs come in bursts (every new guild, a backlog after an outage): a run of them reads and writes its licenses at once. */
    Uni<Void> onBotsInstalled(List<Delivered<BotInstalled>> installs) {
        return changeAll(installs.stream().map(install -> {
            StreamMark at = StreamMark.of(install.envelope());
            return new Change(install.event().guildId(), license -> LicenseRules.botInstalled(license, install.event().guildId(), at),
                    license -> LicenseRules.olderInGuildStream(license, at), install.envelope(), install.traceContext());
        }).toList());
    }

    Uni<Void> onBotKicked(BotKicked event, EventEnvelope envelope) {
        StreamMark at = StreamMark.of(envelope);
        return change(event.guildId(), license -> LicenseRules.botKicked(license, at), license -> LicenseRules.olderInGuildStream(license, at),
                envelope);
    }

    /** A deletion is final: however late it comes, it applies. */
    Uni<Void> onGuildDeleted(GuildDeleted event, EventEnvelope envelope) {
        StreamMark at = StreamMark.of(envelope);
        return change(event.guildId(), license -> LicenseRules.guildDeleted(license, event.guildId(), at), license -> null, envelope);
    }

    Uni<Void> onSubscriptionStarted(SubscriptionStarted event, EventEnvelope envelope) {
        Plan plan = known(event.planCode());
        StreamMark at = StreamMark.of(envelope);
        return change(event.guildId(), license -> LicenseRules.subscriptionStarted(license, event.guildId(),
                event.subscriptionId(), plan, event.periodEnd(), at),
                license -> LicenseRules.olderStart(license, event.subscriptionId(), at), envelope);
    }

    Uni<Void> onPaymentSucceeded(PaymentSucceeded event, EventEnvelope envelope) {
        StreamMark at = StreamMark.of(envelope);
        return changeForSubscription(event.subscriptionId(), envelope, LicenseRules.Fields.PERIOD_OR_END, license ->
                LicenseRules.paymentSucceeded(license, event.subscriptionId(), event.newPeriodEnd(), at));
    }

    Uni<Void> onPaymentFailedFinal(PaymentFailedFinal event, EventEnvelope envelope) {
        StreamMark at = StreamMark.of(envelope);
        return changeForSubscription(event.subscriptionId(), envelope, LicenseRules.Fields.PERIOD_OR_END, license ->
                LicenseRules.paymentFailedFinal(license, event.subscriptionId(), at));
    }

    Uni<Void> onSubscriptionCanceled(SubscriptionCanceled event, EventEnvelope envelope) {
        StreamMark at = StreamMark.of(envelope);
        return changeForSubscription(event.subscriptionId(), envelope, LicenseRules.Fields.PERIOD_OR_END, license ->
                LicenseRules.subscriptionCanceled(license, event.subscriptionId(), event.cancelAtPeriodEnd(), at));
    }

    Uni<Void> onSubscriptionSuspended(SubscriptionSuspended event, EventEnvelope envelope) {
        StreamMark at = StreamMark.of(envelope);
        return changeForSubscription(event.subscriptionId(), envelope, LicenseRules.Fields.SUSPENSION, license ->
                LicenseRules.subscriptionSuspended(license, event.subscriptionId(), event.reason(), at));
    }

    Uni<Void> onSubscriptionResumed(SubscriptionResumed event, EventEnvelope envelope) {
        StreamMark at = StreamMark.of(envelope);
        return changeForSubscription(event.subscriptionId(), envelope, LicenseRules.Fields.SUSPENSION, license ->
                LicenseRules.subscriptionResumed(license, event.subscriptionId(), at));
    }

    Uni<Void> onPlanUpgraded(PlanUpgraded event, EventEnvelope envelope) {
        Plan plan = known(event.newPlan());
        StreamMark at = StreamMark.of(envelope);
        return changeForSubscription(event.subscriptionId(), envelope, LicenseRules.Fields.PLAN, license ->
                LicenseRules.planUpgraded(license, event.subscriptionId(), plan, at));
    }

    Uni<Void> onPlanDowngraded(PlanDowngraded event, EventEnvelope envelope) {
        Plan plan = known(event.newPlan());
        StreamMark at = StreamMark.of(envelope);
        Instant now = clock.instant();
        return changeForSubscription(event.subscriptionId(), envelope, LicenseRules.downgradeFields(event.effectiveAt(), now), license ->
                LicenseRules.planDowngraded(license, event.subscriptionId(), plan, event.effectiveAt(), at, now));
    }

    @WithSession
    public Uni<License> ofGuild(String guildId) {
        return License.findByGuild(guildId)
                .onItem().ifNull().failWith(() -> ProblemException.notFound("no license for guild " + guildId));
    }

    /** The sweeper's path: applies the rules of time to a loaded license and returns it as it is now; the sweeper schedules the next sweep. */
    Uni<LicenseState> sweep(License license, Instant now) {
        LicenseState before = license.state();
        LicenseState after = LicenseRules.sweep(before, now, grace);
        return save(license, before, after).replaceWith(after);
    }

    private Uni<Void> change(String guildId, UnaryOperator<LicenseState> rule, Function<LicenseState, String> stale, EventEnvelope envelope) {
        return changeAll(List.of(new Change(guildId, rule, stale, envelope, TraceContext.current())));
    }

    private Uni<Void> changeForSubscription(UUID subscriptionId, EventEnvelope envelope, LicenseRules.Fields fields,
            UnaryOperator<LicenseState> rule) {
        StreamMark at = StreamMark.of(envelope);
        return guilds.guildOf(Aggregates.SUBSCRIPTION, subscriptionId.toString()).chain(guildId -> {
            if (guildId.isEmpty()) {
                return Uni.createFrom().failure(new RejectedEventException(
                        "subscription " + subscriptionId + " is unknown: its SubscriptionStarted was never applied"));
            }
            return change(guildId.get(), rule, license -> LicenseRules.olderInSubscriptionStream(license, subscriptionId, at, fields), envelope);
        });
    }

    /**
     * A rule to apply to a guild's license; when the event it comes from is older than what the license
     * already applied of the same stream, or its subscription ended ({@code stale} says why, else null), the rule
     * would change nothing and the event is skipped, counted and logged.
     */
    private record Change(String guildId, UnaryOperator<LicenseState> rule, Function<LicenseState, String> stale, EventEnvelope envelope,
            String traceContext) {
    }

    /**
     * Applies the changes in order, each to the license as the ones before left it: the licenses are read
     * with one query, new ones inserted together, and the events of all the changes written with one
     * statement. A change that moves a license's next sweep tells the sweep queue, in the same transaction.
     */
    private Uni<Void> changeAll(List<Change> changes) {
        List<String> guildIds = changes.stream().map(Change::guildId).distinct().toList();
        return License.byGuilds(guildIds).chain(found -> {
            Instant now = clock.instant();
            Map<String, License> licenses = new HashMap<>();
            Map<String, LicenseState> states = new HashMap<>();
            found.forEach(license -> {
                licenses.put(license.guildId, license);
                states.put(license.guildId, license.state());
            });
            List<License> created = new ArrayList<>();
            List<OutboxWriter.Publication> events = new ArrayList<>();
            Map<String, Instant> sweepsDue = new LinkedHashMap<>();
            for (Change change : changes) {
                LicenseState before = states.get(change.guildId());
                String stale = before == null ? null : change.stale().apply(before);
                if (stale != null) {
                    skipped(change.envelope(), before, stale);
                    continue;
                }
                LicenseState after = change.rule().apply(before);
                if (after == null || after.equals(before)) {
                    continue;
                }
                License license = licenses.computeIfAbsent(change.guildId(), guild -> {
                    License fresh = new License();
                    created.add(fresh);
                    return fresh;
                });
                license.update(after, now);
                states.put(change.guildId(), after);
                LicenseChanges.between(before, after).forEach(event -> events.add(new OutboxWriter.Publication(event, now, change.traceContext())));
                Instant nextSweep = LicenseRules.nextSweepAt(after, grace);
                if (nextSweep != null && (before == null || !nextSweep.equals(LicenseRules.nextSweepAt(before, grace)))) {
                    sweepsDue.put(after.licenseId().toString(), nextSweep);
                }
            }
            Uni<Void> stored = created.isEmpty() ? Uni.createFrom().voidItem() : License.insertAll(created);
            stored = stored.chain(() -> outbox.publishInOrder(events)).replaceWithVoid();
            for (Map.Entry<String, Instant> due : sweepsDue.entrySet()) {
                stored = stored.chain(() -> sweeps.schedule(due.getKey(), JsonNodeFactory.instance.objectNode(), due.getValue()));
            }
            return stored;
        });
    }

    private void skipped(EventEnvelope envelope, LicenseState license, String why) {
        AfterCommit.run(() -> {
            LOG.infof("%s %s of %s %s (sequence %d, occurred %s) skipped for the license of guild %s: %s", envelope.eventType(),
                    envelope.eventId(), envelope.aggregateType(), envelope.aggregateId(), envelope.sequence(), envelope.occurredAt(),
                    license.guildId(), why);
            Counter.builder("umbra.licensing.events.skipped").description("Events older than what the license already applied of their stream")
                    .tag("event_type", envelope.eventType()).register(registry).increment();
        });
    }

    /** The sweeper's change of a loaded license. */
    private Uni<Void> save(License license, LicenseState before, LicenseState after) {
        if (after.equals(before)) {
            return Uni.createFrom().voidItem();
        }
        license.update(after, clock.instant());
        return publish(LicenseChanges.between(before, after));
    }

    /** An unknown plan code can never be applied, so the event is rejected. */
    static Plan known(String planCode) {
        return Plan.ofCode(planCode).orElseThrow(() -> new RejectedEventException("unknown plan code " + planCode));
    }

    private Uni<Void> publish(List<DomainEvent> events) {
        return outbox.publishAll(events).replaceWithVoid();
    }
}
