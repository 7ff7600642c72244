package dev.umbra.licensing.entitlement;

import dev.umbra.licensing.license.LicenseStatus;
import dev.umbra.licensing.license.Plan;
import dev.umbra.platform.web.ProblemException;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.EnumMap;
import java.util.Map;

/**
 * The bot's hot path: one indexed point read of the license (unique index on guild_id) through the
 * reactive client, no ORM; the allowances of each plan are read once and kept in memory.
 */
@ApplicationScoped
public class EntitlementReader {

    private final Pool pool;
    /** Kept once read; a failed read is not kept, so the next request reads again. */
    private volatile Map<Plan, Entitlements> catalogue;

    public EntitlementReader(Pool pool) {
        this.pool = pool;
    }

    private Uni<Map<Plan, Entitlements>> catalogue() {
        Map<Plan, Entitlements> known = catalogue;
        if (known != null) {
            return Uni.createFrom().item(known);
        }
        return pool.query("select * from plan_entitlement").execute()
                .map(rows -> {
                    Map<Plan, Entitlements> byPlan = new EnumMap<>(Plan.class);
                    rows.forEach(row -> byPlan.put(Plan.valueOf(row.getString("plan")), entitlements(row)));
                    return Map.copyOf(byPlan);
                })
                .invoke(read -> catalogue = read);
    }

    public Uni<GuildEntitlements> of(String guildId) {
        return pool.preparedQuery("select plan, status from license where guild_id = $1").execute(Tuple.of(guildId))
                .chain(rows -> {
                    if (rows.size() == 0) {
                        return Uni.createFrom().failure(ProblemException.notFound("no license for guild " + guildId));
                    }
                    Row row = rows.iterator().next();
                    Plan plan = Plan.valueOf(row.getString("plan"));
                    LicenseStatus status = LicenseStatus.valueOf(row.getString("status"));
                    Plan entitled = status == LicenseStatus.ACTIVE ? plan : Plan.FREE;
                    return catalogue().map(byPlan -> new GuildEntitlements(guildId, plan, status, entitled, byPlan.get(entitled)));
                });
    }

    private static Entitlements entitlements(Row row) {
        return new Entitlements(row.getInteger("snapshot_retention"), row.getInteger("restores_per_day"),
                row.getBoolean("anti_nuke"), row.getBoolean("web_join"), row.getBoolean("member_restore"));
    }
}
