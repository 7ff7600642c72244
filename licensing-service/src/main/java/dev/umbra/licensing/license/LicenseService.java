package dev.umbra.licensing.license;

import dev.umbra.events.Aggregates;
import dev.umbra.events.DomainEvent;
import dev.umbra.events.EventEnvelope;
import dev.umbra.events.billing.PaymentFailedFinal;
import dev.umbra.events.billing.PaymentSucceeded;
import dev.umbra.events.billing.PlanDowngraded;
import dev.umbra.events.billing.PlanUpgraded;
import dev.umbra.events.billing.SubscriptionResumed;
import dev.umbra.events.billing.SubscriptionStarted;
import dev.umbra.events.billing.SubscriptionSuspended;
import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.guild.BotKicked;
import dev.umbra.events.guild.GuildDeleted;
import dev.umbra.events.plan.Plan;
import dev.umbra.platform.inbox.Delivered;
import dev.umbra.platform.inbox.RejectedEventException;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.readmodel.AggregateGuilds;
import dev.umbra.platform.trace.TraceContext;
import dev.umbra.platform.workqueue.WorkQueue;
import dev.umbra.platform.workqueue.WorkQueues;
import dev.umbra.platform.web.ProblemException;
import io.quarkus.hibernate.reactive.panache.common.WithSession;
import io.smallrye.mutiny.Uni;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.eclipse.microprofile.config.inject.ConfigProperty;
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
import java.util.function.UnaryOperator;

/**
 * Applies {@link LicenseRules} to stored licenses. Handlers run inside the inbox transaction: the
 * license and the outbox events commit together with the dedupe row. The guild of a subscription comes
 * from the platform's read model {@link AggregateGuilds}, which the subscription consumer feeds.
 */
@ApplicationScoped
public class LicenseService {

    private final OutboxWriter outbox;
    private final Clock clock;
    private final WorkQueue sweeps;
    private final Duration grace;
    private final AggregateGuilds guilds;

    public LicenseService(OutboxWriter outbox, Clock clock, WorkQueues queues,
            @ConfigProperty(name = "licensing.sweeper.grace") Duration grace, AggregateGuilds guilds) {
        this.outbox = outbox;
        this.clock = clock;
        this.sweeps = queues.queue(LicenseSweeper.QUEUE);
        this.grace = grace;
        this.guilds = guilds;
    }

    /** Installs come in bursts (every new guild, a backlog after an outage): a run of them reads and writes its licenses at once. */
    Uni<Void> onBotsInstalled(List<Delivered<BotInstalled>> installs) {
        return changeAll(installs.stream().map(install -> new Change(install.event().guildId(),
                license -> LicenseRules.botInstalled(license, install.event().guildId(), install.envelope().occurredAt()),
                install.traceContext())).toList());
    }

    Uni<Void> onBotKicked(BotKicked event, EventEnvelope envelope) {
        return change(event.guildId(), license -> LicenseRules.botKicked(license, envelope.occurredAt()));
    }

    Uni<Void> onGuildDeleted(GuildDeleted event, EventEnvelope envelope) {
        return change(event.guildId(), license -> LicenseRules.guildDeleted(license, envelope.occurredAt()));
    }

    Uni<Void> onSubscriptionStarted(SubscriptionStarted event, EventEnvelope envelope) {
        Plan plan = known(event.planCode());
        return change(event.guildId(), license -> LicenseRules.subscriptionStarted(license, event.guildId(),
                event.subscriptionId(), plan, event.periodEnd(), envelope.occurredAt()));
    }

    Uni<Void> onPaymentSucceeded(PaymentSucceeded event, EventEnvelope envelope) {
        return changeForSubscription(event.subscriptionId(), license ->
                LicenseRules.paymentSucceeded(license, event.subscriptionId(), event.newPeriodEnd(), envelope.occurredAt()));
    }

    Uni<Void> onPaymentFailedFinal(PaymentFailedFinal event, EventEnvelope envelope) {
        return changeForSubscription(event.subscriptionId(), license ->
                LicenseRules.paymentFailedFinal(license, event.subscriptionId(), envelope.occurredAt()));
    }

    Uni<Void> onSubscriptionSuspended(SubscriptionSuspended event, EventEnvelope envelope) {
        return changeForSubscription(event.subscriptionId(), license ->
                LicenseRules.subscriptionSuspended(license, event.subscriptionId(), event.reason(), envelope.occurredAt()));
    }

    Uni<Void> onSubscriptionResumed(SubscriptionResumed event, EventEnvelope envelope) {
        return changeForSubscription(event.subscriptionId(), license ->
                LicenseRules.subscriptionResumed(license, event.subscriptionId(), envelope.occurredAt()));
    }

    Uni<Void> onPlanUpgraded(PlanUpgraded event, EventEnvelope envelope) {
        Plan plan = known(event.newPlan());
        return changeForSubscription(event.subscriptionId(), license ->
                LicenseRules.planUpgraded(license, event.subscriptionId(), plan, envelope.occurredAt()));
    }

    Uni<Void> onPlanDowngraded(PlanDowngraded event, EventEnvelope envelope) {
        Plan plan = known(event.newPlan());
        return changeForSubscription(event.subscriptionId(), license -> LicenseRules.planDowngraded(license,
                event.subscriptionId(), plan, event.effectiveAt(), envelope.occurredAt(), clock.instant()));
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

    private Uni<Void> change(String guildId, UnaryOperator<LicenseState> rule) {
        return changeAll(List.of(new Change(guildId, rule, TraceContext.current())));
    }

    private Uni<Void> changeForSubscription(UUID subscriptionId, UnaryOperator<LicenseState> rule) {
        return guilds.guildOf(Aggregates.SUBSCRIPTION, subscriptionId.toString()).chain(guildId -> {
            if (guildId.isEmpty()) {
                return Uni.createFrom().failure(new RejectedEventException(
                        "subscription " + subscriptionId + " is unknown: its SubscriptionStarted was never applied"));
            }
            return change(guildId.get(), rule);
        });
    }

    /** A rule to apply to a guild's license, and the trace of the event it comes from. */
    private record Change(String guildId, UnaryOperator<LicenseState> rule, String traceContext) {
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
            Uni<Void> stored = created.isEmpty() ? Uni.createFrom().voidItem() : License.persist(created);
            stored = stored.chain(() -> outbox.publishInOrder(events)).replaceWithVoid();
            for (Map.Entry<String, Instant> due : sweepsDue.entrySet()) {
                stored = stored.chain(() -> sweeps.schedule(due.getKey(), JsonNodeFactory.instance.objectNode(), due.getValue()));
            }
            return stored;
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
