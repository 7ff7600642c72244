package dev.umbra.recovery.restore;

import dev.umbra.recovery.snapshot.GuildStructure;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The steps that turn a guild as Discord has it now into the guild of a snapshot. An object is the
 * same object when its id is: one the snapshot has and Discord no longer has is created anew (and the
 * ids that refer to it — a channel's parent, an overwrite, a member's roles — are resolved to the new
 * id when the step that needs them is applied); one Discord has and the snapshot has not is deleted.
 *
 * <p>Order: roles first (channels' overwrites and members refer to them), then their order in the
 * hierarchy — one step that puts every role of the snapshot at its position, when a role is recreated or
 * the kept ones stand in another order (the hierarchy decides who may manage whom) — then categories,
 * then other channels, then members' roles, then the deletions, channels before roles. The guild's
 * @everyone role (its id is the guild's) is never created or deleted, only changed, and always stays at
 * the bottom. A channel's type is not compared (Discord does not change it). The roles of a member withheld
 * (a suspect of an anti-nuke burst since the snapshot) are left as they are now.
 */
public final class RestorePlanner {

    /** One planned step: what to do to which object (by its id in the snapshot, or on Discord for a deletion), with what. */
    public record Step(StepKind kind, String targetId, Object spec) {
    }

    /** The positions of the snapshot's roles, by their ids in the snapshot (a recreated role's new id is resolved when applied). */
    public record RolePositions(List<Position> roles) {

        public record Position(String id, int position) {
        }
    }

    private RestorePlanner() {
    }

    public static List<Step> plan(String guildId, GuildStructure snapshot, GuildStructure current, Set<String> withheld) {
        Map<String, GuildStructure.Role> roles = byId(current.roles(), GuildStructure.Role::id);
        Map<String, GuildStructure.Channel> channels = byId(current.channels(), GuildStructure.Channel::id);
        Map<String, GuildStructure.Member> members = byId(current.members(), GuildStructure.Member::id);
        List<Step> steps = new ArrayList<>();
        for (GuildStructure.Role role : snapshot.roles()) {
            GuildStructure.Role now = roles.get(role.id());
            if (now == null && !role.id().equals(guildId)) {
                steps.add(new Step(StepKind.CREATE_ROLE, role.id(), role));
            } else if (now != null && !sameRole(now, role)) {
                steps.add(new Step(StepKind.UPDATE_ROLE, role.id(), role));
            }
        }
        List<GuildStructure.Role> ranked = snapshot.roles().stream().filter(role -> !role.id().equals(guildId)).toList();
        boolean recreated = steps.stream().anyMatch(step -> step.kind() == StepKind.CREATE_ROLE);
        if (!ranked.isEmpty() && (recreated || !sameOrder(ranked, roles))) {
            steps.add(new Step(StepKind.ORDER_ROLES, guildId, new RolePositions(ranked.stream()
                    .map(role -> new RolePositions.Position(role.id(), role.position())).toList())));
        }
        List<GuildStructure.Channel> categoriesFirst = new ArrayList<>(snapshot.channels().stream()
                .filter(channel -> channel.type() == GuildStructure.CATEGORY).toList());
        categoriesFirst.addAll(snapshot.channels().stream().filter(channel -> channel.type() != GuildStructure.CATEGORY).toList());
        for (GuildStructure.Channel channel : categoriesFirst) {
            GuildStructure.Channel now = channels.get(channel.id());
            if (now == null) {
                steps.add(new Step(StepKind.CREATE_CHANNEL, channel.id(), channel));
            } else if (!sameChannel(now, channel)) {
                steps.add(new Step(StepKind.UPDATE_CHANNEL, channel.id(), channel));
            }
        }
        for (GuildStructure.Member member : snapshot.members()) {
            GuildStructure.Member now = members.get(member.id());
            if (now != null && !withheld.contains(member.id()) && !new HashSet<>(now.roles()).equals(new HashSet<>(member.roles()))) {
                steps.add(new Step(StepKind.SET_MEMBER_ROLES, member.id(), member));
            }
        }
        Set<String> keptChannels = new HashSet<>(snapshot.channels().stream().map(GuildStructure.Channel::id).toList());
        current.channels().stream().filter(channel -> !keptChannels.contains(channel.id()))
                .forEach(channel -> steps.add(new Step(StepKind.DELETE_CHANNEL, channel.id(), channel)));
        Set<String> keptRoles = new HashSet<>(snapshot.roles().stream().map(GuildStructure.Role::id).toList());
        current.roles().stream().filter(role -> !keptRoles.contains(role.id()) && !role.id().equals(guildId))
                .forEach(role -> steps.add(new Step(StepKind.DELETE_ROLE, role.id(), role)));
        return steps;
    }

    /** Whether the kept roles stand in the snapshot's order on Discord (positions compared as ranks: Discord renumbers them). */
    private static boolean sameOrder(List<GuildStructure.Role> ranked, Map<String, GuildStructure.Role> now) {
        List<GuildStructure.Role> kept = ranked.stream().filter(role -> now.containsKey(role.id())).toList();
        List<String> wanted = kept.stream().sorted(Comparator.comparingInt(GuildStructure.Role::position)).map(GuildStructure.Role::id)
                .toList();
        List<String> standing = kept.stream().map(role -> now.get(role.id()))
                .sorted(Comparator.comparingInt(GuildStructure.Role::position)).map(GuildStructure.Role::id).toList();
        return wanted.equals(standing);
    }

    private static boolean sameRole(GuildStructure.Role a, GuildStructure.Role b) {
        return a.name().equals(b.name()) && a.color() == b.color() && a.permissions().equals(b.permissions()) && a.hoist() == b.hoist()
                && a.mentionable() == b.mentionable();
    }

    private static boolean sameChannel(GuildStructure.Channel a, GuildStructure.Channel b) {
        return a.name().equals(b.name()) && a.position() == b.position() && Objects.equals(a.parentId(), b.parentId())
                && Objects.equals(blankToNull(a.topic()), blankToNull(b.topic()))
                && new HashSet<>(a.permissionOverwrites()).equals(new HashSet<>(b.permissionOverwrites()));
    }

    private static String blankToNull(String text) {
        return text == null || text.isEmpty() ? null : text;
    }

    private static <T> Map<String, T> byId(List<T> items, Function<T, String> id) {
        Map<String, T> map = new LinkedHashMap<>();
        items.forEach(item -> map.putIfAbsent(id.apply(item), item));
        return map;
    }
}
