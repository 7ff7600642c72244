package dev.umbra.recovery.snapshot;

import dev.umbra.platform.storage.NativeSelects;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;

/**
 * Serialises a guild's writers of one kind inside their transactions with a transaction-scoped
 * advisory lock, released at commit or rollback: two snapshots of a guild apply retention one after
 * the other, and a restore request looks its snapshot up before or after either; of two restore
 * requests at once, one goes on and the other is refused.
 */
public final class GuildLocks {

    private static final String LOCK = "select count(*) from (select pg_advisory_xact_lock(hashtext($1))) as locked";
    private static final String TRY_LOCK = "select pg_try_advisory_xact_lock(hashtext($1))";

    private GuildLocks() {
    }

    public static Uni<Void> lock(String kind, String guildId) {
        return Panache.getSession().chain(session -> NativeSelects.select(session, LOCK, kind + ":" + guildId)).replaceWithVoid();
    }

    /** The lock if nobody holds it, at once: false when another transaction does (it is not waited for). */
    public static Uni<Boolean> tryLock(String kind, String guildId) {
        return Panache.getSession().chain(session -> NativeSelects.select(session, TRY_LOCK, kind + ":" + guildId))
                .map(NativeSelects.single(Boolean.class));
    }
}
