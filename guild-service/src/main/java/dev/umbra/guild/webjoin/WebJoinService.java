package dev.umbra.guild.webjoin;

import dev.umbra.events.member.MemberJoinedViaWebJoin;
import dev.umbra.guild.lifecycle.Guild;
import dev.umbra.guild.lifecycle.GuildStatus;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.readmodel.GuildPlans;
import dev.umbra.platform.web.ProblemException;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.util.UUID;

@ApplicationScoped
public class WebJoinService {

    public record Joined(Member member, boolean created) {
    }

    private final OutboxWriter outbox;
    private final Clock clock;
    private final GuildPlans plans;

    public WebJoinService(OutboxWriter outbox, Clock clock, GuildPlans plans) {
        this.outbox = outbox;
        this.clock = clock;
        this.plans = plans;
    }

    /** Gives the guild the slug (replacing its old one). Only the guild's owner may; a slug is one guild's. */
    @WithTransaction
    public Uni<WebJoinLink> claimSlug(String guildId, String slug, String callerDiscordId) {
        return Guild.<Guild>findById(guildId).chain(guild -> {
            if (guild == null) {
                return Uni.createFrom().failure(ProblemException.notFound("no guild " + guildId));
            }
            if (!callerDiscordId.equals(guild.ownerId)) {
                return Uni.createFrom().failure(ProblemException.forbidden("only the guild's owner may set its web-join link"));
            }
            if (guild.status != GuildStatus.INSTALLED) {
                return Uni.createFrom().failure(ProblemException.conflict("the bot is not installed in guild " + guildId));
            }
            return requireWebJoin(guildId).chain(() -> WebJoinLink.<WebJoinLink>findById(slug)).chain(taken -> {
                if (taken != null && !taken.guildId.equals(guildId)) {
                    return Uni.createFrom().failure(ProblemException.conflict("the slug " + slug + " is taken"));
                }
                if (taken != null) {
                    return Uni.createFrom().item(taken);
                }
                WebJoinLink link = new WebJoinLink();
                link.slug = slug;
                link.guildId = guildId;
                link.createdAt = clock.instant();
                return WebJoinLink.delete("guildId", guildId)
                        .chain(() -> link.<WebJoinLink>persist());
            });
        });
    }

    /** The caller joins the guild behind the slug; joining again is the same membership and publishes nothing. */
    @WithTransaction
    public Uni<Joined> join(String slug, String discordUserId) {
        return WebJoinLink.<WebJoinLink>findById(slug).chain(link -> {
            if (link == null) {
                return Uni.createFrom().failure(ProblemException.notFound("no web-join link " + slug));
            }
            return Guild.<Guild>findById(link.guildId).chain(guild -> {
                if (guild.status != GuildStatus.INSTALLED) {
                    return Uni.createFrom().failure(ProblemException.conflict("guild " + guild.guildId + " does not take members now"));
                }
                return requireWebJoin(guild.guildId)
                        .chain(() -> Member.<Member>find("guildId = ?1 and discordUserId = ?2", guild.guildId, discordUserId).<Member>firstResult())
                        .chain(existing -> existing != null
                                ? Uni.createFrom().item(new Joined(existing, false))
                                : newMember(guild.guildId, slug, discordUserId));
            });
        });
    }

    /** The guild's plan must include web-join (licensing's word, kept locally from its events). */
    private Uni<Void> requireWebJoin(String guildId) {
        return plans.entitlementsOf(guildId).invoke(entitlements -> {
            if (!entitlements.webJoin()) {
                throw ProblemException.forbidden("the plan of guild " + guildId + " does not include web-join");
            }
        }).replaceWithVoid();
    }

    private Uni<Joined> newMember(String guildId, String slug, String discordUserId) {
        Member member = new Member();
        member.memberId = UUID.randomUUID();
        member.guildId = guildId;
        member.discordUserId = discordUserId;
        member.slug = slug;
        member.joinedAt = clock.instant();
        return member.persist()
                .chain(() -> outbox.publish(new MemberJoinedViaWebJoin(member.memberId, guildId, slug)))
                .replaceWith(new Joined(member, true));
    }
}
