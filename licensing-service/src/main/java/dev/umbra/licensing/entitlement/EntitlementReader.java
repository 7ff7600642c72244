package dev.umbra.licensing.entitlement;

import dev.umbra.events.plan.Plan;
import dev.umbra.licensing.license.LicenseStatus;
import dev.umbra.platform.storage.Statements;
import dev.umbra.platform.web.ProblemException;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The bot's hot path: one indexed point read of the license (unique index on guild_id) through the
 * reactive client, no ORM. What each plan allows is {@link Plan}'s, shared with every service.
 */
@ApplicationScoped
public class EntitlementReader {

    private final Pool pool;

    public EntitlementReader(Pool pool) {
        this.pool = pool;
    }

    public Uni<GuildEntitlements> of(String guildId) {
        return Statements.execute(pool, "select plan, status from license where guild_id = $1", Tuple.of(guildId))
                .map(rows -> {
                    if (rows.size() == 0) {
                        throw ProblemException.notFound("no license for guild " + guildId);
                    }
                    Row row = rows.iterator().next();
                    Plan plan = Plan.valueOf(row.getString("plan"));
                    LicenseStatus status = LicenseStatus.valueOf(row.getString("status"));
                    Plan entitled = status == LicenseStatus.ACTIVE ? plan : Plan.FREE;
                    return new GuildEntitlements(guildId, plan, status, entitled, entitled.entitlements());
                });
    }
}
