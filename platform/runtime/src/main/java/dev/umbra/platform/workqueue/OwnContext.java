package dev.umbra.platform.workqueue;

import io.quarkus.vertx.core.runtime.context.VertxContextSafetyToggle;
import io.smallrye.common.vertx.VertxContext;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import java.util.function.Supplier;

/**
 * Runs work on a fresh duplicated Vert.x context marked safe. Hibernate Reactive keeps its session in
 * the context: tries running side by side must not share one, and a scheduled round has none at all.
 */
final class OwnContext {

    private OwnContext() {
    }

    /**
     * On a fresh duplicate of {@code parent}, the context of whoever started a batch of work (read once, before
     * it: the thread that finishes one try and starts the next need not be a Vert.x one); as it is when there
     * was none (a plain thread shares no session).
     */
    static <T> Uni<T> runOn(Context parent, Supplier<Uni<T>> work) {
        return parent == null ? Uni.createFrom().deferred(work::get) : run(parent, work);
    }

    static <T> Uni<T> run(Context parent, Supplier<Uni<T>> work) {
        Context own = VertxContext.createNewDuplicatedContext(parent);
        VertxContextSafetyToggle.setContextSafe(own, true);
        return Uni.createFrom().emitter(emitter -> own.runOnContext(ignored -> Uni.createFrom().<T>deferred(() -> work.get())
                .subscribe().with(emitter::complete, emitter::fail)));
    }
}
