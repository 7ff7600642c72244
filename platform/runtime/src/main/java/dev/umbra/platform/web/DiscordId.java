package dev.umbra.platform.web;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import jakarta.validation.ReportAsSingleViolation;
import jakarta.validation.constraints.Pattern;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** A Discord id ("snowflake"): an unsigned 64-bit integer written in decimal, 17 to 20 digits. */
@Documented
@Pattern(regexp = "\\d{17,20}")
@ReportAsSingleViolation
@Constraint(validatedBy = {})
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.RECORD_COMPONENT, ElementType.TYPE_USE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
public @interface DiscordId {
    String message() default "must be a Discord id (17 to 20 digits)";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
