package dev.umbra.recovery.snapshot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * What changed from one snapshot to another: roles and channels added, removed or changed (by id), and
 * members whose roles differ (a member in one snapshot only counts as having gained or lost all roles).
 */
public record SnapshotDiff(Changes roles, Changes channels, List<MemberChange> members) {

    public record Changes(List<String> added, List<String> removed, List<String> changed) {
    }

    public record MemberChange(String id, List<String> rolesAdded, List<String> rolesRemoved) {
    }

    public static SnapshotDiff between(GuildStructure from, GuildStructure to) {
        return new SnapshotDiff(changes(from.roles(), to.roles(), GuildStructure.Role::id),
                changes(from.channels(), to.channels(), GuildStructure.Channel::id),
                members(from.members(), to.members()));
    }

    public boolean isEmpty() {
        return roles.added().isEmpty() && roles.removed().isEmpty() && roles.changed().isEmpty() && channels.added().isEmpty()
                && channels.removed().isEmpty() && channels.changed().isEmpty() && members.isEmpty();
    }

    private static <T> Changes changes(List<T> from, List<T> to, Function<T, String> id) {
        Map<String, T> before = byId(from, id);
        Map<String, T> after = byId(to, id);
        List<String> added = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        after.forEach((key, item) -> {
            if (!before.containsKey(key)) {
                added.add(key);
            } else if (!Objects.equals(before.get(key), item)) {
                changed.add(key);
            }
        });
        List<String> removed = before.keySet().stream().filter(key -> !after.containsKey(key)).toList();
        return new Changes(added, removed, changed);
    }

    private static List<MemberChange> members(List<GuildStructure.Member> from, List<GuildStructure.Member> to) {
        Map<String, GuildStructure.Member> before = byId(from, GuildStructure.Member::id);
        Map<String, GuildStructure.Member> after = byId(to, GuildStructure.Member::id);
        TreeSet<String> ids = new TreeSet<>(before.keySet());
        ids.addAll(after.keySet());
        List<MemberChange> changes = new ArrayList<>();
        for (String member : ids) {
            List<String> had = before.containsKey(member) ? before.get(member).roles() : List.of();
            List<String> has = after.containsKey(member) ? after.get(member).roles() : List.of();
            List<String> gained = has.stream().filter(role -> !had.contains(role)).toList();
            List<String> lost = had.stream().filter(role -> !has.contains(role)).toList();
            if (!gained.isEmpty() || !lost.isEmpty()) {
                changes.add(new MemberChange(member, gained, lost));
            }
        }
        return changes;
    }

    private static <T> Map<String, T> byId(List<T> items, Function<T, String> id) {
        Map<String, T> map = new LinkedHashMap<>();
        items.forEach(item -> map.putIfAbsent(id.apply(item), item));
        return map;
    }
}
