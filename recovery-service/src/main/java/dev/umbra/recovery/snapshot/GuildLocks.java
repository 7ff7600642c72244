package dev.umbra.recovery.snapshot;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;

/**
 * Serialises a guild's writers of one kind inside their transactions with a transaction-scoped
 * advisory lock: two snapshots of a guild apply retention one after the other, two restore requests
 * check "one active" one after the other. Released at commit or rollback.
 */
public final class GuildLocks {

    private static final String LOCK = "select count(*) from (select pg_advisory_xact_lock(hashtext(:key))) as locked";

    private GuildLocks() {
    }

    public static Uni<Void> lock(String kind, String guildId) {
        return Panache.getSession().chain(session -> session.createNativeQuery(LOCK, Long.class)
                .setParameter("key", kind + ":" + guildId).getSingleResult()).replaceWithVoid();
    }
}
