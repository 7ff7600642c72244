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
import dev.umbra.platform.inbox.RejectedEventException;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.readmodel.AggregateGuilds;
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
import java.util.List;
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

    Uni<Void> onBotInstalled(BotInstalled event, EventEnvelope envelope) {
        return change(event.guildId(), license -> LicenseRules.botInstalled(license, event.guildId(), envelope.occurredAt()));
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
        return save(license, license.guildId, before, after).replaceWith(after);
    }

    private Uni<Void> change(String guildId, UnaryOperator<LicenseState> rule) {
        return License.findByGuild(guildId).chain(license -> store(license, guildId, rule));
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

    /** An event's change; when it moves the license's next sweep, the sweep queue learns it in the same transaction. */
    private Uni<Void> store(License license, String guildId, UnaryOperator<LicenseState> rule) {
        LicenseState before = license == null ? null : license.state();
        LicenseState after = rule.apply(before);
        Uni<Void> saved = save(license, guildId, before, after);
        if (after == null) {
            return saved;
        }
        Instant nextSweep = LicenseRules.nextSweepAt(after, grace);
        boolean moved = nextSweep != null && (before == null || !nextSweep.equals(LicenseRules.nextSweepAt(before, grace)));
        return moved ? saved.chain(() -> sweeps.schedule(after.licenseId().toString(), JsonNodeFactory.instance.objectNode(), nextSweep))
                : saved;
    }

    private Uni<Void> save(License license, String guildId, LicenseState before, LicenseState after) {
        if (after == null || after.equals(before)) {
            return Uni.createFrom().voidItem();
        }
        License target = license != null ? license : new License();
        target.update(after, clock.instant());
        Uni<Void> saved = license != null ? Uni.createFrom().voidItem() : target.persist().replaceWithVoid();
        return saved.chain(() -> publish(LicenseChanges.between(before, after)));
    }

    /** An unknown plan code can never be applied, so the event is rejected. */
    static Plan known(String planCode) {
        return Plan.ofCode(planCode).orElseThrow(() -> new RejectedEventException("unknown plan code " + planCode));
    }

    private Uni<Void> publish(List<DomainEvent> events) {
        Uni<Void> chain = Uni.createFrom().voidItem();
        for (DomainEvent event : events) {
            chain = chain.chain(() -> outbox.publish(event)).replaceWithVoid();
        }
        return chain;
    }
}
