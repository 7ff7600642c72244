package dev.umbra.recovery.plan;

import dev.umbra.events.EventEnvelope;
import dev.umbra.events.licensing.LicenseCanceled;
import dev.umbra.events.licensing.LicenseDowngraded;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.events.licensing.LicenseSuspended;
import dev.umbra.events.plan.Entitlements;
import dev.umbra.events.plan.Plan;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.UUID;

/**
 * Each guild's plan as licensing announced it (table {@code guild_plan}), and so what recovery may do
 * for the guild (snapshot retention, restores per day, anti-nuke, member restore): recovery never asks
 * licensing.
 *
 * <p>Convergence in any order: a license's events share one Kafka key and come in commit order, but a
 * replay from a dead-letter topic can bring an old one back late, and an event of a license may be
 * applied before its LicenseGranted. So each event upserts the license's row, plan and status each
 * keep the occurred_at of the event that set them, an older event never overwrites a newer one (an
 * equal one does: it came later from the same partition), and CANCELED is final. Only LicenseGranted
 * names the guild; a row without a guild gates nothing until it arrives. LicenseExtended changes no
 * allowance and is not read. A redelivered event is dropped by the inbox before it gets here.
 */
@ApplicationScoped
public class GuildPlans {

    private static final String ACTIVE = "ACTIVE";
    private static final String NEWER_PLAN = """
            plan = case when guild_plan.plan_at is null or excluded.plan_at >= guild_plan.plan_at
                        then excluded.plan else guild_plan.plan end,
            plan_at = greatest(guild_plan.plan_at, excluded.plan_at)""";
    private static final String NEWER_STATUS = """
            status = case when guild_plan.status = 'CANCELED' then guild_plan.status
                          when guild_plan.status_at is null or excluded.status_at >= guild_plan.status_at then excluded.status
                          else guild_plan.status end,
            status_at = case when guild_plan.status = 'CANCELED' then guild_plan.status_at
                             else greatest(guild_plan.status_at, excluded.status_at) end""";
    private static final String GRANTED = """
            insert into guild_plan (license_id, guild_id, plan, plan_at, status, status_at)
            values (:licenseId, :guildId, :plan, :at, 'ACTIVE', :at)
            on conflict (license_id) do update set guild_id = excluded.guild_id,
            """ + NEWER_PLAN + ",\n" + NEWER_STATUS;
    private static final String DOWNGRADED = """
            insert into guild_plan (license_id, plan, plan_at) values (:licenseId, :plan, :at)
            on conflict (license_id) do update set
            """ + NEWER_PLAN;
    private static final String STATUS = """
            insert into guild_plan (license_id, status, status_at) values (:licenseId, :status, :at)
            on conflict (license_id) do update set
            """ + NEWER_STATUS;
    private static final String ACTIVE_PLANS = "select plan from guild_plan where guild_id = :guildId and status = 'ACTIVE'";

    public Uni<Void> onGranted(LicenseGranted event, EventEnvelope envelope) {
        return Panache.getSession().chain(session -> session.createNativeQuery(GRANTED)
                .setParameter("licenseId", event.licenseId())
                .setParameter("guildId", event.guildId())
                .setParameter("plan", event.planCode())
                .setParameter("at", envelope.occurredAt())
                .executeUpdate()).replaceWithVoid();
    }

    public Uni<Void> onDowngraded(LicenseDowngraded event, EventEnvelope envelope) {
        return Panache.getSession().chain(session -> session.createNativeQuery(DOWNGRADED)
                .setParameter("licenseId", event.licenseId())
                .setParameter("plan", event.newPlan())
                .setParameter("at", envelope.occurredAt())
                .executeUpdate()).replaceWithVoid();
    }

    public Uni<Void> onSuspended(LicenseSuspended event, EventEnvelope envelope) {
        return status(event.licenseId(), "SUSPENDED", envelope);
    }

    public Uni<Void> onCanceled(LicenseCanceled event, EventEnvelope envelope) {
        return status(event.licenseId(), "CANCELED", envelope);
    }

    /**
     * What the guild may do now: the allowances of the highest plan among its active licenses; FREE's
     * without one (also before licensing's first word, and for a plan code this version does not know).
     * Call inside a session.
     */
    public Uni<Entitlements> entitlementsOf(String guildId) {
        return Panache.getSession().chain(session -> session.createNativeQuery(ACTIVE_PLANS, String.class)
                        .setParameter("guildId", guildId)
                        .getResultList())
                .map(GuildPlans::highest)
                .map(Plan::entitlements);
    }

    static Plan highest(List<String> activePlans) {
        Plan highest = Plan.FREE;
        for (String code : activePlans) {
            Plan plan = Plan.ofCode(code).orElse(Plan.FREE);
            if (plan.isAbove(highest)) {
                highest = plan;
            }
        }
        return highest;
    }

    private static Uni<Void> status(UUID licenseId, String status, EventEnvelope envelope) {
        return Panache.getSession().chain(session -> session.createNativeQuery(STATUS)
                .setParameter("licenseId", licenseId)
                .setParameter("status", status)
                .setParameter("at", envelope.occurredAt())
                .executeUpdate()).replaceWithVoid();
    }
}
