package dev.umbra.recovery.snapshot;

import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.web.DiscordId;
import dev.umbra.platform.web.Problem;
import dev.umbra.platform.web.ProblemException;
import dev.umbra.platform.web.Roles;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.core.Context;
import java.util.List;
import java.util.UUID;

/**
 * Snapshots of a guild. The bot takes them (it is the one that sees the guild on Discord); the bot and
 * operators read them. A malformed structure is 400, one whose parts do not refer to each other
 * properly 422 with the violations, one larger than {@code recovery.snapshot.max-bytes} 413.
 */
@Path("/guilds/{guildId}/snapshots")
@DatabaseGuard
public class SnapshotResource {

    /**
     * The trigger as text with a pattern: an unknown enum constant would fail in Jackson, outside the problem+json mappers.
     * Only the bot's kinds: PRE_RESTORE and ANTI_NUKE are recovery's own, and retention keeps as many again of each, so
     * the bot storing them would keep three times the plan's count and could push out those recovery took of an incident.
     */
    public record TakeRequest(@NotNull @Pattern(regexp = "MANUAL|SCHEDULED") String trigger,
            @NotNull @Valid GuildStructure structure) {
    }

    private static final String UUID_TEXT = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";

    private final SnapshotService snapshots;
    private final SnapshotSettings settings;

    public SnapshotResource(SnapshotService snapshots, SnapshotSettings settings) {
        this.snapshots = snapshots;
        this.settings = settings;
    }

    @POST
    @RolesAllowed(Roles.BOT)
    public Uni<Response> take(@PathParam("guildId") @DiscordId String guildId, @Valid @NotNull TakeRequest request, @Context UriInfo uri) {
        List<Problem.Violation> violations = StructureRules.violations(request.structure());
        if (!violations.isEmpty()) {
            return Uni.createFrom().item(Response.status(422).type(Problem.MEDIA_TYPE)
                    .entity(new Problem("about:blank", "Unprocessable Entity", 422, "the structure does not hold together", uri.getPath(),
                            violations)).build());
        }
        SnapshotCodec.Encoded encoded = SnapshotCodec.encode(request.structure());
        if (encoded.sizeBytes() > settings.maxBytes()) {
            throw new ProblemException(413, "Content Too Large",
                    "the structure takes " + encoded.sizeBytes() + " bytes; at most " + settings.maxBytes() + " are stored");
        }
        return snapshots.take(guildId, SnapshotTrigger.valueOf(request.trigger()), encoded)
                .map(snapshot -> Response.status(201).entity(SnapshotView.summary(snapshot)).build());
    }

    @GET
    @RolesAllowed({Roles.BOT, Roles.ADMIN})
    public Uni<List<SnapshotView>> list(@PathParam("guildId") @DiscordId String guildId) {
        return snapshots.ofGuild(guildId).map(all -> all.stream().map(SnapshotView::summary).toList());
    }

    @GET
    @Path("{snapshotId}")
    @RolesAllowed({Roles.BOT, Roles.ADMIN})
    public Uni<SnapshotView> get(@PathParam("guildId") @DiscordId String guildId, @PathParam("snapshotId") UUID snapshotId) {
        return snapshots.get(guildId, snapshotId).map(SnapshotView::whole);
    }

    /**
     * What changed from this snapshot to the one named by {@code to}. {@code to} is taken as text: a query
     * parameter that does not convert would be a 404 by JAX-RS' rule, where a malformed query is a 400 (and
     * the pattern tells the API's document what it takes).
     */
    @GET
    @Path("{snapshotId}/diff")
    @RolesAllowed({Roles.BOT, Roles.ADMIN})
    public Uni<SnapshotDiff> diff(@PathParam("guildId") @DiscordId String guildId, @PathParam("snapshotId") UUID from,
            @QueryParam("to") @NotNull @Pattern(regexp = UUID_TEXT) String to) {
        return snapshots.diff(guildId, from, UUID.fromString(to));
    }
}
