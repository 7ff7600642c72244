package dev.umbra.platform.storage;

import io.smallrye.common.annotation.Identifier;
import io.smallrye.faulttolerance.api.TypedGuard;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.Priority;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;

/** Outside Panache's transaction interceptors (priority 200), so that a retry opens a new transaction. */
@DatabaseGuard
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class DatabaseGuardInterceptor {

    private final TypedGuard<Uni<Object>> guard;
    private final DatabaseSettings settings;

    public DatabaseGuardInterceptor(@Identifier(DatabaseGuards.DATABASE) TypedGuard<Uni<Object>> guard, DatabaseSettings settings) {
        this.guard = guard;
        this.settings = settings;
    }

    @AroundInvoke
    @SuppressWarnings("unchecked")
    Object guard(InvocationContext invocation) throws Exception {
        if (!Uni.class.isAssignableFrom(invocation.getMethod().getReturnType())) {
            return invocation.proceed();
        }
        return guard.call(() -> (Uni<Object>) invocation.proceed())
                .onFailure(TimeoutException.class).transform(timedOut -> new DatabaseTimeoutException(settings.callTimeout(), timedOut));
    }
}
