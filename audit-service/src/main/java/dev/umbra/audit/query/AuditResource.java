package dev.umbra.audit.query;

import dev.umbra.platform.web.DiscordId;
import dev.umbra.platform.web.ProblemException;
import dev.umbra.platform.web.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import java.time.Clock;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * The audit log, read. An operator reads all of it; the bot only the events of the guild it names
 * (403 otherwise). Parameters are checked by {@link AuditQuery} (400, problem+json).
 */
@Path("/audit")
public class AuditResource {

    private final AuditQueries queries;
    private final JsonWebToken caller;
    private final Clock clock;

    public AuditResource(AuditQueries queries, JsonWebToken caller, Clock clock) {
        this.queries = queries;
        this.caller = caller;
        this.clock = clock;
    }

    /** Events by guild, aggregate, event type and occurred_at range, newest first unless {@code order=asc}. */
    @GET
    @Path("events")
    @RolesAllowed({Roles.ADMIN, Roles.BOT})
    public Uni<AuditPage> events(@QueryParam("guildId") String guildId, @QueryParam("aggregateType") String aggregateType,
            @QueryParam("aggregateId") String aggregateId, @QueryParam("eventType") String eventType, @QueryParam("from") String from,
            @QueryParam("to") String to, @QueryParam("knownAt") String knownAt, @QueryParam("order") String order,
            @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        requireMayRead(guildId);
        return queries.page(AuditQuery.of(new AuditQuery.Parameters(guildId, aggregateType, aggregateId, eventType, from, to, knownAt,
                order, limit, cursor), AuditQuery.Order.DESC, clock.instant()));
    }

    /** A guild's events in the order they occurred (oldest first unless {@code order=desc}), with the same filters. */
    @GET
    @Path("guilds/{guildId}/timeline")
    @RolesAllowed({Roles.ADMIN, Roles.BOT})
    public Uni<AuditPage> timeline(@PathParam("guildId") @DiscordId String guildId, @QueryParam("aggregateType") String aggregateType,
            @QueryParam("aggregateId") String aggregateId, @QueryParam("eventType") String eventType, @QueryParam("from") String from,
            @QueryParam("to") String to, @QueryParam("knownAt") String knownAt, @QueryParam("order") String order,
            @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        requireMayRead(guildId);
        return queries.page(AuditQuery.of(new AuditQuery.Parameters(guildId, aggregateType, aggregateId, eventType, from, to, knownAt,
                order, limit, cursor), AuditQuery.Order.ASC, clock.instant()));
    }

    private void requireMayRead(String guildId) {
        if (!caller.getGroups().contains(Roles.ADMIN) && guildId == null) {
            throw ProblemException.forbidden("the bot reads the audit log of one guild at a time: name it with guildId");
        }
    }
}
