package dev.umbra.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A WARN (or ERROR) line this test class provokes on purpose, such as the circuit opening while it
 * cuts the database; or, under category {@link LogLines#POSTGRESQL}, an ERROR or FATAL line of PostgreSQL's
 * (a connection the test terminates). Anything else at those levels fails the class: see {@link LogGuard}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Repeatable(ExpectedLogs.class)
public @interface ExpectedLog {

    /** The logger category, or a prefix of it. */
    String category();

    /** WARN or ERROR (PostgreSQL's: ERROR, FATAL or PANIC). */
    String level() default "WARN";

    /** A regular expression found in the message. */
    String message() default "";
}
