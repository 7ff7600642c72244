package dev.umbra.platform.storage;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;

/**
 * Deletes the row of a managed entity with a plain statement in the session's transaction, and lets the
 * session forget the entity. Never {@code entity.delete()}: Hibernate Reactive 3.2's delete coordinator
 * keeps its pending stage in a field shared by every session (hibernate-reactive#1713), so two removes of
 * one entity type at the same moment can lose one's completion: its DELETE ran, its {@code Uni} never
 * ends, and its transaction sits idle until the server ends it. Seen in billing: two renewals rolled
 * back together under an open gateway circuit hung their work-queue round for good.
 */
public final class RowDeletes {

    private RowDeletes() {
    }

    /** Deletes {@code entity}'s row from {@code table} by its primary key {@code id}; the caller holds the row's lock or owns it. */
    public static Uni<Void> delete(Object entity, String table, Object id) {
        return Panache.getSession().chain(session -> session.createNativeQuery("delete from " + table + " where id = :id")
                .setParameter("id", id).executeUpdate()
                .invoke(() -> session.detach(entity)))
                .replaceWithVoid();
    }
}
