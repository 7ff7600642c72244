package dev.umbra.recovery.snapshot;

import java.util.List;

/** Small structures for the domain tests. */
public final class StructureFixtures {

    public static final String GUILD = "100000000000000001";
    public static final String MOD = "200000000000000001";
    public static final String HELPER = "200000000000000002";
    public static final String CATEGORY = "300000000000000001";
    public static final String GENERAL = "300000000000000002";
    public static final String ALICE = "400000000000000001";
    public static final String BOB = "400000000000000002";

    private StructureFixtures() {
    }

    public static GuildStructure.Role role(String id, String name, String permissions) {
        return new GuildStructure.Role(id, name, 0, permissions, 1, false, false);
    }

    public static GuildStructure.Channel channel(String id, String name, int type, String parentId, GuildStructure.Overwrite... overwrites) {
        return new GuildStructure.Channel(id, name, type, 0, parentId, null, List.of(overwrites));
    }

    public static GuildStructure.Overwrite roleOverwrite(String roleId) {
        return new GuildStructure.Overwrite(roleId, 0, "1024", "0");
    }

    public static GuildStructure.Member member(String id, String... roles) {
        return new GuildStructure.Member(id, List.of(roles));
    }

    /** @everyone, mod and helper; a category with #general (mod may see it); alice is mod, bob helper. */
    public static GuildStructure guild() {
        return new GuildStructure(
                List.of(role(GUILD, "@everyone", "0"), role(MOD, "mod", "8"), role(HELPER, "helper", "4")),
                List.of(channel(CATEGORY, "text", 4, null), channel(GENERAL, "general", 0, CATEGORY, roleOverwrite(MOD))),
                List.of(member(ALICE, MOD), member(BOB, HELPER)));
    }
}
