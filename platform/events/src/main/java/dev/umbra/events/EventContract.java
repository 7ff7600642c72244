package dev.umbra.events;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a payload record as an event of the catalogue. The event type is the record's simple name;
 * the aggregate decides the topic and which payload field is the Kafka key.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface EventContract {
    String aggregate();

    int version() default 1;
}
