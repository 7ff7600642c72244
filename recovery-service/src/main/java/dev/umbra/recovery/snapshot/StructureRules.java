package dev.umbra.recovery.snapshot;

import dev.umbra.platform.web.Problem.Violation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What a well-formed structure must also hold to be restorable: ids unique per kind, a member's roles
 * and a role's overwrites name roles of the snapshot, a channel's parent is a category of the snapshot.
 * The guild's own id is its @everyone role's: Discord never lists it as a member's role.
 */
public final class StructureRules {

    private StructureRules() {
    }

    public static List<Violation> violations(GuildStructure structure) {
        List<Violation> violations = new ArrayList<>();
        Set<String> roles = unique(structure.roles(), GuildStructure.Role::id, "roles", violations);
        Map<String, GuildStructure.Channel> channels = structure.channels().stream()
                .collect(Collectors.toMap(GuildStructure.Channel::id, Function.identity(), (a, b) -> a));
        unique(structure.channels(), GuildStructure.Channel::id, "channels", violations);
        unique(structure.members(), GuildStructure.Member::id, "members", violations);
        for (int i = 0; i < structure.channels().size(); i++) {
            GuildStructure.Channel channel = structure.channels().get(i);
            if (channel.parentId() != null) {
                GuildStructure.Channel parent = channels.get(channel.parentId());
                if (parent == null || parent.type() != GuildStructure.CATEGORY || channel.type() == GuildStructure.CATEGORY) {
                    violations.add(new Violation("channels[" + i + "].parentId", "must be a category of this snapshot"));
                }
            }
            for (int j = 0; j < channel.permissionOverwrites().size(); j++) {
                GuildStructure.Overwrite overwrite = channel.permissionOverwrites().get(j);
                if (overwrite.type() == 0 && !roles.contains(overwrite.id())) {
                    violations.add(new Violation("channels[" + i + "].permissionOverwrites[" + j + "].id", "must be a role of this snapshot"));
                }
            }
        }
        for (int i = 0; i < structure.members().size(); i++) {
            List<String> memberRoles = structure.members().get(i).roles();
            for (int j = 0; j < memberRoles.size(); j++) {
                if (!roles.contains(memberRoles.get(j))) {
                    violations.add(new Violation("members[" + i + "].roles[" + j + "]", "must be a role of this snapshot"));
                }
            }
        }
        return violations;
    }

    private static <T> Set<String> unique(List<T> items, Function<T, String> id, String field, List<Violation> violations) {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < items.size(); i++) {
            if (!seen.add(id.apply(items.get(i)))) {
                violations.add(new Violation(field + "[" + i + "].id", "appears twice"));
            }
        }
        return seen;
    }
}
