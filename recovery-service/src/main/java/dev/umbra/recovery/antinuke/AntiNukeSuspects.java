package dev.umbra.recovery.antinuke;

import dev.umbra.platform.storage.NativeSelects;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import java.time.Instant;
import java.util.Set;

/**
 * The members caught in a burst in a guild since a moment. A snapshot taken before a burst holds the roles its
 * actor attacked with: a restore from it must not give them back, or it undoes the anti-nuke response and re-arms
 * the attacker. Read in the caller's session.
 */
public final class AntiNukeSuspects {

    private static final String SINCE = "select distinct actor_id from anti_nuke_incident where guild_id = $1 and last_at >= $2";

    private AntiNukeSuspects() {
    }

    /** Everyone whose burst in {@code guildId} went on at or after {@code at}. */
    public static Uni<Set<String>> since(String guildId, Instant at) {
        return Panache.getSession().chain(session -> NativeSelects.select(session, SINCE, guildId, at))
                .map(NativeSelects.column(String.class)).map(Set::copyOf);
    }
}
