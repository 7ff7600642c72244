package dev.umbra.platform.readmodel;

import dev.umbra.events.EventEnvelope;
import dev.umbra.events.StreamMark;
import dev.umbra.events.licensing.LicenseCanceled;
import dev.umbra.events.licensing.LicenseDowngraded;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.events.licensing.LicenseSuspended;
import dev.umbra.events.plan.Entitlements;
import dev.umbra.events.plan.Plan;
import dev.umbra.platform.inbox.ReadModel;
import dev.umbra.platform.storage.NativeSelects;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * Read model (table {@code license_plan}): each guild's plan as licensing announced it, and so what the
 * guild may do, without ever asking licensing. Kept per license by the rules of {@link LicensePlan}
 * from LicenseGranted, LicenseDowngraded, LicenseSuspended and LicenseCanceled (LicenseExtended changes
 * no allowance); a service keeps it by feeding it from its consumer of {@code umbra.license}
 * ({@code EventHandlers.builder().feeding(guildPlans)}). Runs inside the caller's session.
 *
 * <p>Each event locks its license's row (made empty first if the license is new) and applies its rule
 * to what it reads, so two events of one license applied at once are applied one after the other.
 */
@ApplicationScoped
public class GuildPlans implements ReadModel {

    /** A timestamp as microseconds since the epoch: its exact value, whatever type a driver would map it to. */
    private static final String MICROS = "cast(extract(epoch from %s) * 1000000 as bigint)";
    private static final String MAKE = "insert into license_plan (license_id) values (?1) on conflict do nothing";
    private static final String LOCK = "select guild_id, plan, " + MICROS.formatted("plan_at") + ", plan_sequence, status, "
            + MICROS.formatted("status_at") + ", status_sequence from license_plan where license_id = $1 for update";
    private static final String STORE = "update license_plan set guild_id = ?2, plan = ?3, plan_at = cast(?4 as timestamptz), "
            + "plan_sequence = ?5, status = ?6, status_at = cast(?7 as timestamptz), status_sequence = ?8 where license_id = ?1";
    private static final String ACTIVE_PLANS = "select plan from license_plan where guild_id = $1 and status = 'ACTIVE'";

    @Override
    public void learnFrom(Feed feed) {
        feed.on(LicenseGranted.class, (event, envelope) ->
                        change(event.licenseId(), license -> license.granted(event.guildId(), event.planCode(), StreamMark.of(envelope))))
                .on(LicenseDowngraded.class, (event, envelope) ->
                        change(event.licenseId(), license -> license.downgraded(event.newPlan(), StreamMark.of(envelope))))
                .on(LicenseSuspended.class, (event, envelope) ->
                        change(event.licenseId(), license -> license.suspended(StreamMark.of(envelope))))
                .on(LicenseCanceled.class, (event, envelope) ->
                        change(event.licenseId(), license -> license.canceled(StreamMark.of(envelope))));
    }

    /**
     * What the guild may do now: the allowances of the highest plan among its active licenses; FREE's
     * without one (also before licensing's first word, and for a plan code this version does not know).
     */
    public Uni<Entitlements> entitlementsOf(String guildId) {
        return Panache.getSession().chain(session -> NativeSelects.select(session, ACTIVE_PLANS, guildId))
                .map(NativeSelects.column(String.class))
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

    private static Uni<Void> change(UUID licenseId, UnaryOperator<LicensePlan> rule) {
        return Panache.getSession().chain(session -> session.createNativeQuery(MAKE).setParameter(1, licenseId).executeUpdate()
                .chain(() -> NativeSelects.select(session, LOCK, licenseId))
                .chain(rows -> {
                    LicensePlan before = stored(rows.get(0));
                    LicensePlan after = rule.apply(before);
                    if (after.equals(before)) {
                        return Uni.createFrom().voidItem();
                    }
                    return session.createNativeQuery(STORE)
                            .setParameter(1, licenseId)
                            .setParameter(2, after.guildId())
                            .setParameter(3, after.plan())
                            .setParameter(4, after.planAt() == null ? null : utc(after.planAt().at()))
                            .setParameter(5, after.planAt() == null ? null : after.planAt().sequence())
                            .setParameter(6, after.status())
                            .setParameter(7, after.statusAt() == null ? null : utc(after.statusAt().at()))
                            .setParameter(8, after.statusAt() == null ? null : after.statusAt().sequence())
                            .executeUpdate().replaceWithVoid();
                }));
    }

    private static LicensePlan stored(Object[] row) {
        return new LicensePlan((String) row[0], (String) row[1], position(row[2], row[3]), (String) row[4], position(row[5], row[6]));
    }

    /** A stored position; rows moved from the services' former tables carry no sequence. */
    private static StreamMark position(Object micros, Object sequence) {
        if (micros == null) {
            return null;
        }
        Instant at = Instant.EPOCH.plus(((Number) micros).longValue(), ChronoUnit.MICROS);
        return new StreamMark(sequence == null ? 0 : ((Number) sequence).longValue(), at);
    }

    private static OffsetDateTime utc(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }
}
