package dev.umbra.platform.web;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Instants read from requests, in a query parameter or a JSON body: ISO-8601, and within the years 1 to 9999. Java parses
 * instants far beyond what PostgreSQL's timestamptz holds, and such a value reached the database as a 500 (an ERROR in
 * its log) where it is the client's mistake: 400.
 */
public final class Instants {

    public static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
    public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999999Z");
    /** For a problem's detail: what an instant must look like. */
    public static final String EXPECTED = "an ISO-8601 instant such as 2026-11-28T09:00:00Z, from year 1 to 9999";

    private Instants() {
    }

    /** {@code value} as an instant; a {@link DateTimeParseException} when it is not one or lies outside the years above. */
    public static Instant parse(String value) {
        return withinRange(Instant.parse(value), value);
    }

    /** {@code instant} itself; a {@link DateTimeParseException} when it lies outside the years above. */
    static Instant withinRange(Instant instant, String text) {
        if (instant.isBefore(EARLIEST) || instant.isAfter(LATEST)) {
            throw new DateTimeParseException("outside the years 1 to 9999", text, 0);
        }
        return instant;
    }

    /** The query parameter {@code name} as an instant, null when absent or blank; 400 problem+json when it is not one. */
    public static Instant parameter(String name, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return parse(value);
        } catch (DateTimeParseException e) {
            throw ProblemException.badRequest(name + " must be " + EXPECTED);
        }
    }
}
