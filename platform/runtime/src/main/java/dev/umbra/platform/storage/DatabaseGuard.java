package dev.umbra.platform.storage;

import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs every {@code Uni} method of the annotated bean (a REST resource, typically) through the
 * "database" guard: a call that surely did not reach the database is retried a few times with
 * jittered backoff, and a circuit breaker answers at once while the database is down. Put it at the
 * edge, around the whole unit of work, never inside a transaction: a retry must start it anew.
 */
@InterceptorBinding
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
public @interface DatabaseGuard {
}
